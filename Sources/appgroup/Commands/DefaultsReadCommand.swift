import PropertyLists

/// `appgroup defaults read [--root DIR] GROUP [--suite NAME] [KEY] [--json]`.
enum DefaultsReadCommand {
    static let help = """
        usage: appgroup defaults read [--root DIR] GROUP [--suite NAME] [KEY] [--json]
               appgroup defaults read [--root DIR] --bundle BUNDLE [--suite NAME] [KEY] [--json]

        Prints a defaults suite of the App Group GROUP, or one key of it, as
        `defaults read` does (old-style property-list text: dictionaries in braces,
        arrays in parentheses, booleans as 1 and 0, data as {length = N, bytes = 0x...};
        a string or date on its own bare). With --json: JSON, dates as ISO 8601 strings
        and data as base64 strings.

        It reads through SharedDefaults, as an app does (no lock, never a torn file),
        acting as an identity entitled to GROUP.

        Options:
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites, in its own container
                        (default suite: the app's own domain, named after the bundle)
          --json        print JSON
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1) for an unknown group, a suite that does not exist, a missing key
        or a corrupt suite file.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: ["json"])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 0...1, "[KEY]")
        // Entries, not a dictionary: a key is matched exactly as stored, so of two
        // keys that differ only in Unicode normalization each reads its own value.
        let entries = try suite.entries()
        let json = arguments.flag("json")
        guard let key = rest.first else {
            return json ? try Output.jsonObject(entries.map { ($0.key, Output.jsonValue($0.value)) })
                        : Output.line(OldStylePlist.render(entries: entries))
        }
        guard let value = entries.first(where: { $0.key.utf8.elementsEqual(key.utf8) })?.value else {
            throw CLIError.notFound("the domain/default pair of (\(suite.name), \(key)) does not exist: no key \(Arguments.quote(key)) in \(suite.label)")
        }
        if json { try Output.json(Output.jsonValue(value)) } else { Output.line(OldStylePlist.renderTopLevel(value)) }
    }
}
