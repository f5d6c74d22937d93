import SharedDefaults

/// `appgroup defaults write [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...`.
enum DefaultsWriteCommand {
    static let help = """
        usage: appgroup defaults write [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...
               appgroup defaults write [--root DIR] --bundle BUNDLE [--suite NAME] KEY [-type] VALUE...

        Sets KEY in a defaults suite of the App Group GROUP, typed as `defaults write`
        types values:
          -string TEXT            a string (also the default with no type: KEY VALUE)
          -int N, -integer N      an integer
          -float X                a real number
          -bool B, -boolean B     YES, NO, true, false, 1 or 0
          -data HEX               bytes in hex: -data 68656c6c6f
          -date D                 2026-11-30T09:00:00Z or "2026-11-30 09:00:00 +0000"
          -array V...             an array of strings: -array a b c
          -dict K V...            a dictionary of strings: -dict k1 v1 k2 v2
          -array-add V...         append to the array KEY holds (made if missing)
          -dict-add K V...        add pairs to the dictionary KEY holds (made if missing)
        Inside -array and -dict a scalar type before a value types it: -array -int 1 -int 2.
        An untyped value in old-style property-list form is parsed as `defaults` parses it:
        '(a, b)' is an array, '{ k = v; n = (1, 2); }' a dictionary, <68656c6c6f> data inside
        them; every other leaf is a string. Quote it for the shell.

        The write goes through SharedDefaults and its file coordinator, as an app's does:
        under the suite's write lock the latest suite is re-read, the key changed and the
        whole suite saved atomically, so a concurrent writer's keys are never lost and a
        running app or extension observing the suite sees the change at once. appgroup
        acts as an identity entitled to GROUP. It refuses to write to a corrupt suite file.

        Options (before KEY; everything after KEY is the value):
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites (default: its own domain)
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails with exit 65 for a value that does not parse as its type, 64 for bad
        arguments, 1 for an unknown group or a corrupt suite file.
        """

    static func run(_ argv: [String]) throws {
        // With --bundle there is no GROUP: the value starts after KEY all the same.
        let namesBundle = argv.contains { $0 == "--bundle" || $0.hasPrefix("--bundle=") }
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [], positionalsBeforeTrailing: namesBundle ? 1 : 2)
        // A lone --help after the key asks for help too (store the text with -string --help).
        if arguments.wantsHelp || arguments.trailing == ["--help"] || arguments.trailing == ["-h"] { return Output.line(help) }
        try arguments.expectPositionals(namesBundle ? 1...1 : 2...2, namesBundle ? "KEY VALUE" : "GROUP KEY VALUE")
        // Parse the value before touching anything: a bad value writes nothing.
        let write = try DefaultsValue.parse(arguments.trailing)
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 1...1, "KEY VALUE")
        guard let key = rest.first else { throw CLIError.usage("missing arguments: expected KEY VALUE") }
        try DefaultsSuite.translating {
            // A corrupt file fails the read here; the write would move it aside instead.
            if suite.exists { _ = try suite.defaults.persistentDomain() }
            switch write {
            case .set(let value):
                try suite.defaults.save(value, forKey: key)
            case .arrayAdd(let elements):
                try suite.defaults.update(forKey: key) { old in
                    guard let old else { return elements }
                    guard let array = old as? [Any] else { throw kindMismatch(key, old, "-array-add appends to an array") }
                    return array + elements
                }
            case .dictionaryAdd(let pairs):
                try suite.defaults.update(forKey: key) { old in
                    guard let old else { return pairs }
                    guard let dictionary = old as? [String: Any] else { throw kindMismatch(key, old, "-dict-add adds to a dictionary") }
                    return dictionary.merging(pairs) { _, new in new }
                }
            }
        }
    }

    static func kindMismatch(_ key: String, _ old: Any, _ what: String) -> CLIError {
        .failed("the key \(Arguments.quote(key)) holds \(OldStylePlist.kind(of: old)), and \(what); nothing was written (write it with -array or -dict to replace it)")
    }
}
