import AppGroupContainer
import Foundation

/// `appgroup defaults import GROUP [--suite NAME] FILE|-`: loads a prepared suite.
enum DefaultsImportCommand {
    static let help = """
        usage: appgroup defaults import [--root DIR] GROUP [--suite NAME] FILE|-
               appgroup defaults import [--root DIR] --bundle BUNDLE [--suite NAME] FILE|-

        Replaces a defaults suite with the dictionary in FILE (or standard input for -),
        an XML or binary property list, as `defaults import` does: keys the file lacks
        are removed, the others set. The suite is made if it does not exist. The change
        is one atomic save under the suite's write lock, through SharedDefaults, so a
        running app or extension sees it at once and a concurrent writer is never torn.
        Every value is stored exactly as FILE holds it: integers up to 18446744073709551615,
        reals and dates bit for bit (-0.0, NaN and infinities included), every spelling of
        a key, so importing what `defaults export` wrote gives back the same suite.

        Options:
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites (default: its own domain)
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails with exit 65 when FILE is not a property list holding a dictionary (nothing
        is changed), 1 for an unknown group, a missing FILE or a corrupt suite file.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 1...1, "FILE|-")
        guard let source = rest.first else { throw CLIError.usage("missing arguments: expected FILE|-") }
        let name = source == "-" ? "standard input" : source
        // Read and check the whole file before touching the suite: a bad file changes nothing.
        guard case .dictionary(let dictionary) = try PropertyListFile.parse(try PropertyListFile.readBytes(source), source: name) else {
            throw CLIError.badValue("\(name) holds a property list that is not a dictionary; a defaults suite is a dictionary of keys and values")
        }
        // Stored as the file holds it, never through Foundation values: integers
        // above Int64.max stay integers (they once became reals), reals and dates keep
        // their bits, nested keys every spelling. So `export` then `import` gives back
        // the suite exported. A key that cannot be stored fails the transaction, which
        // then writes nothing.
        try DefaultsSuite.translating {
            // A corrupt suite fails the read here; the save would move it aside instead.
            if suite.exists { _ = try suite.defaults.persistentDomain() }
            try suite.defaults.transaction { transaction in
                for key in transaction.keys { transaction.removeObject(forKey: key) }
                for (key, value) in dictionary { try transaction.set(stored: value, forKey: key) }
            }
        }
    }
}
