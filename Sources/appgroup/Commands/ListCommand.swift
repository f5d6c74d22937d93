import AppGroupContainer
import Foundation

/// `appgroup list [--root DIR] [--json]`: the groups present, each with its
/// suites, its pending inbox items and the bytes it uses.
enum ListCommand {
    static let help = """
        usage: appgroup list [--root DIR] [--json]

        Lists the App Groups whose containers are present under the container root,
        each with its container path, its defaults suites (the .plist files of
        Library/Preferences), the number of items pending in its share inbox and the
        bytes its files use (regular files, links not followed). Nothing is created
        or consumed.

        Options:
          --json        print JSON: an array of {group, path, suites, pending, bytes}
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1) when the root does not exist.
        """

    struct Entry {
        var group: GroupIdentifier
        var path: URL
        var suites: [String]
        var pending: Int
        var bytes: Int64
    }

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root"], flags: ["json"])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(0...0, "no arguments besides the options")
        let inspector = try Inspector(rootOption: arguments.option("root"))
        let entries = try inspector.groups().map { try entry($0, inspector: inspector) }
        if arguments.flag("json") {
            return try Output.json(entries.map { entry -> [String: Any] in
                ["group": entry.group.rawValue, "path": entry.path.path, "suites": entry.suites,
                 "pending": entry.pending, "bytes": Int(entry.bytes)]
            })
        }
        if entries.isEmpty { return Output.line("no groups under \(inspector.root.path)") }
        for entry in entries {
            Output.line(entry.group.rawValue)
            Output.line("    path:    \(entry.path.path)")
            Output.line("    suites:  \(entry.suites.isEmpty ? "(none)" : entry.suites.joined(separator: ", "))")
            Output.line("    pending: \(entry.pending)")
            Output.line("    bytes:   \(entry.bytes)")
        }
    }

    static func entry(_ group: GroupIdentifier, inspector: Inspector) throws -> Entry {
        let container = try inspector.resolver(for: group).containerLocation(for: group)
        var pending = 0
        do {
            pending = try GroupInbox.open(group, container: container, inspector: inspector)?.pendingCount() ?? 0
        } catch let error as AppGroupError {
            throw CLIError.failed("cannot count the share inbox of \(group.rawValue): \(error)")
        }
        return Entry(group: group, path: container, suites: suites(in: container), pending: pending, bytes: bytes(under: container))
    }

    /// The suite names: `<name>.plist` files of Library/Preferences (not the
    /// hidden lock and temporary files, nor corrupt files moved aside).
    static func suites(in container: URL) -> [String] {
        let preferences = container.appendingPathComponent("Library/Preferences", isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: preferences.path)) ?? []
        return names.filter { $0.hasSuffix(".plist") && !$0.hasPrefix(".") }.map { String($0.dropLast(6)) }.sorted()
    }

    /// The bytes of the regular files under `directory`, without following links.
    static func bytes(under directory: URL) -> Int64 {
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey]
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys) else { return 0 }
        var total: Int64 = 0
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }
}
