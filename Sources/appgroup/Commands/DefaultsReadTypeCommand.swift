import Foundation
import PropertyLists

/// `appgroup defaults read-type GROUP [--suite NAME] KEY`: `Type is string`...
enum DefaultsReadTypeCommand {
    static let help = """
        usage: appgroup defaults read-type [--root DIR] GROUP [--suite NAME] KEY
               appgroup defaults read-type [--root DIR] --bundle BUNDLE [--suite NAME] KEY

        Prints the type of KEY's value as `defaults read-type` does: "Type is string"
        (integer, float, boolean, data, date, array, dictionary).

        Options:
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites (default: its own domain)
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1) for an unknown group, a suite or key that does not exist or a corrupt suite file.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 1...1, "KEY")
        guard let key = rest.first else { throw CLIError.usage("missing arguments: expected KEY") }
        guard let value = try suite.entries().first(where: { $0.key.utf8.elementsEqual(key.utf8) })?.value else {
            throw CLIError.notFound("the domain/default pair of (\(suite.name), \(key)) does not exist: no key \(Arguments.quote(key)) in \(suite.label)")
        }
        Output.line("Type is \(typeName(value))")
    }

    /// The word `defaults read-type` uses for a value's type.
    static func typeName(_ value: Any) -> String { OldStylePlist.ValueType(value)?.rawValue ?? "unknown" }
}
