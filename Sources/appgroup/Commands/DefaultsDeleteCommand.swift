import AppGroupContainer
import Foundation
import SharedDefaults

/// `appgroup defaults delete [--root DIR] GROUP [--suite NAME] [KEY]`.
enum DefaultsDeleteCommand {
    static let help = """
        usage: appgroup defaults delete [--root DIR] GROUP [--suite NAME] [KEY]

        Removes KEY from a defaults suite of the App Group GROUP, or, without KEY, every
        key of the suite (the suite's file stays, empty: apps see no values, as after
        `defaults delete DOMAIN`).

        The change goes through SharedDefaults and its file coordinator, in one atomic
        save under the suite's write lock, as an app's would; appgroup acts as an
        identity entitled to GROUP.

        Options:
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites (default: its own domain)
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1) for an unknown group, a suite that does not exist, a missing key
        or a corrupt suite file (which it leaves as it is), and on a full disk: the new,
        smaller suite file is written beside the old one before it replaces it, so a
        delete needs room for it (the message says how much to free).
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 0...1, "[KEY]")
        // Reports a missing suite or a corrupt file before changing anything.
        _ = try suite.values()
        let key = rest.first
        let size = (try? FileManager.default.attributesOfItem(atPath: suite.defaults.fileURL.path)[.size] as? Int) ?? 0
        try DefaultsSuite.translating {
            do {
                try delete(key, in: suite)
            } catch let error where isDiskFull(error) {
                // The one case where a delete fails although it frees space: say why, and what to do.
                throw CLIError.failed("the disk is full, so \(suite.label) cannot be saved and nothing was changed. A save never rewrites a suite "
                    + "in place (a crash would leave half a file): it writes the new suite file beside the old one, then renames it over the old "
                    + "one, so even a delete needs room for the new, smaller file. To make room, free at least \(max(size, 4096)) bytes (the "
                    + "suite's size now) on the file system of \(suite.defaults.fileURL.deletingLastPathComponent().path), for example by "
                    + "draining the group's share inbox or removing files in its Library/Caches, then run the command again")
            }
        }
    }

    /// Removes `key` (every key when nil) from `suite` in one transaction.
    private static func delete(_ key: String?, in suite: DefaultsSuite) throws {
        try suite.defaults.transaction { transaction in
            guard let key else {
                for name in transaction.keys { transaction.removeObject(forKey: name) }
                return
            }
            guard transaction.keys.contains(where: { $0.utf8.elementsEqual(key.utf8) }) else {
                throw CLIError.notFound("the domain/default pair of (\(suite.name), \(key)) does not exist: no key \(Arguments.quote(key)) in \(suite.label); nothing was changed")
            }
            transaction.removeObject(forKey: key)
        }
    }

    /// True when `error` is a save refused because the file system is full (ENOSPC, EDQUOT).
    private static func isDiskFull(_ error: any Error) -> Bool {
        let reason: AppGroupError?
        switch error {
        case let SharedDefaultsError.fileSystem(_, failure): reason = failure
        case let failure as AppGroupError: reason = failure
        default: reason = nil
        }
        guard case let .systemCall(_, _, code)? = reason else { return false }
        return code == .ENOSPC || code == .EDQUOT
    }
}
