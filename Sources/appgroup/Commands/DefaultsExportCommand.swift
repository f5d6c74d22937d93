import AppGroupContainer
import Foundation
import PropertyLists

/// `appgroup defaults export GROUP [--suite NAME] FILE|-`: a suite's snapshot.
enum DefaultsExportCommand {
    static let help = """
        usage: appgroup defaults export [--root DIR] GROUP [--suite NAME] FILE|-
               appgroup defaults export [--root DIR] --bundle BUNDLE [--suite NAME] FILE|-

        Writes a defaults suite whole to FILE (or standard output for -) as a binary
        property list, as `defaults export` does: a snapshot a test can load again with
        `defaults import`, or keep when a run fails. Every key is written exactly as
        stored. The suite is read as an app reads it (a whole file, never a torn one);
        FILE is replaced atomically.

        Options:
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites (default: its own domain)
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1) for an unknown group, a suite that does not exist or a corrupt suite file.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 1...1, "FILE|-")
        guard let target = rest.first else { throw CLIError.usage("missing arguments: expected FILE|-") }
        _ = try suite.values() // the existence and corruption checks, with their messages
        let data = try DefaultsSuite.translating { try AtomicFile.read(suite.defaults.fileURL, below: .marked(above: suite.defaults.fileURL)) }
        guard let data else { throw CLIError.notFound("domain \(suite.name) does not exist: no \(suite.label) at \(suite.defaults.fileURL.path)") }
        let tree = try PropertyListFile.parse(data, source: suite.defaults.fileURL.path)
        let binary: Data
        do {
            binary = try PropertyListCodec.write(tree, format: .binary)
        } catch {
            throw CLIError.failed("cannot write \(suite.label) as a binary property list: \(error)")
        }
        try PropertyListFile.writeBytes(binary, to: target)
    }
}
