import AppGroupContainer
import Foundation
import PropertyLists
import SharedDefaults

/// `appgroup defaults find WORD`: every suite of the device, searched.
enum DefaultsFindCommand {
    static let help = """
        usage: appgroup defaults find [--root DIR] WORD

        Searches every defaults suite under the container root (each group's suites and
        each app's private suites) for WORD in a key or in a string value, ignoring case,
        as `defaults find` does, and prints each suite that has matches:
          Found 2 keys in domain 'group.com.example' (group group.com.example): { ... }
        with the matching keys and their whole values in `defaults read` form, or
        "Found no keys matching 'WORD'". Nothing is changed.

        Options:
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        A corrupt suite is reported on standard error and skipped; the search goes on and
        exits 1 at the end. Fails (exit 1) when the root does not exist.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(1...1, "WORD")
        let word = arguments.positionals[0]
        guard !word.isEmpty else { throw CLIError.usage("WORD is empty: give some text to search for") }
        let inspector = try Inspector(rootOption: arguments.option("root"))
        var found = 0
        var failures: [String] = []
        for (owner, suites) in try domains(inspector) {
            for suite in suites {
                do {
                    let opened = try suite()
                    let matching = try opened.entries().filter { matches($0.key, word) || contains($0.value, word) }
                    guard !matching.isEmpty else { continue }
                    found += matching.count
                    Output.line("Found \(matching.count) keys in domain '\(opened.name)' (\(owner)): " + OldStylePlist.render(entries: matching))
                } catch let error as CLIError {
                    failures.append(error.description)
                    Output.error(error.description + " (skipped)")
                }
            }
        }
        if found == 0 && failures.isEmpty { Output.line("Found no keys matching '\(word)'") }
        if !failures.isEmpty {
            throw CLIError.failed("\(failures.count) suite(s) could not be searched (see above); the others were")
        }
    }

    /// Every group's and every app's suites, as openers (each opens the suite afresh).
    static func domains(_ inspector: Inspector) throws -> [(String, [() throws -> DefaultsSuite])] {
        var out: [(String, [() throws -> DefaultsSuite])] = []
        for group in try inspector.groups() {
            let container = inspector.root.appendingPathComponent(group.rawValue, isDirectory: true)
            let openers = ListCommand.suites(in: container).map { name in
                { try DefaultsSuite.open(inspector: inspector, group: group, suite: name) }
            }
            out.append(("group \(group.rawValue)", openers))
        }
        let applications = inspector.root.appendingPathComponent(ContainerResolver.applicationsDirectoryName, isDirectory: true)
        guard inspector.isDirectory(applications) else { return out }
        for bundle in try FileKind.names(in: applications).sorted() {
            guard let (resolver, container) = try? inspector.existingApplication(bundle) else { continue }
            let openers = ListCommand.suites(in: container).map { name in
                { try DefaultsSuite.open(application: resolver, suite: name) }
            }
            out.append(("app \(bundle)", openers))
        }
        return out
    }

    static func matches(_ text: String, _ word: String) -> Bool { text.range(of: word, options: [.caseInsensitive]) != nil }

    /// True when a string anywhere in `value` contains `word`.
    static func contains(_ value: Any, _ word: String) -> Bool {
        switch value {
        case let string as String: return matches(string, word)
        case let array as [Any]: return array.contains { contains($0, word) }
        case let dictionary as [String: Any]: return dictionary.contains { matches($0.key, word) || contains($0.value, word) }
        default: return false
        }
    }
}
