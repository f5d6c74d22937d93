import PropertyLists
import SharedDefaults

/// `appgroup defaults write [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...`.
enum DefaultsWriteCommand {
    static let help = """
        usage: appgroup defaults write [--root DIR] GROUP [--suite NAME] KEY [-type] VALUE...
               appgroup defaults write [--root DIR] --bundle BUNDLE [--suite NAME] KEY [-type] VALUE...

        Sets KEY in a defaults suite of the App Group GROUP, typed as `defaults write`
        types values:
          -string TEXT            a string (also the default with no type: KEY VALUE)
          -int N, -integer N      an integer, -9223372036854775808 to 18446744073709551615
          -float X                a real number (the 64-bit real nearest X; beyond the range
                                  of one, as 1e400 or 1e-400, refused)
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
            // The additions join the stored value as the file holds it, not a Foundation
            // copy of it, which would merge nested keys that differ only in Unicode
            // normalization (a value lost) and reorder the rest.
            case .arrayAdd(let elements):
                let added = try elements.map { try SharedDefaults.storedForm(of: $0, forKey: key) }
                try suite.defaults.transaction { transaction in
                    switch transaction.storedValue(forKey: key) {
                    case nil: try transaction.set(stored: .array(added), forKey: key)
                    case .array(let items)?: try transaction.set(stored: .array(items + added), forKey: key)
                    case .some: throw kindMismatch(key, transaction.object(forKey: key) ?? "", "-array-add appends to an array")
                    }
                }
            case .dictionaryAdd(let pairs):
                // In byte order of their keys, so the file is the same whatever order a Swift dictionary gives.
                let added = try pairs.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                    .map { ($0.key, try SharedDefaults.storedForm(of: $0.value, forKey: key)) }
                try suite.defaults.transaction { transaction in
                    var dictionary = PropertyListDictionary()
                    switch transaction.storedValue(forKey: key) {
                    case nil: break
                    case .dictionary(let stored)?: dictionary = stored
                    case .some: throw kindMismatch(key, transaction.object(forKey: key) ?? "", "-dict-add adds to a dictionary")
                    }
                    // Exact keys, as Apple's dictionaries: "caf\u{E9}" does not replace "cafe\u{301}".
                    for (name, value) in added { dictionary.set(value, forKey: name) }
                    try transaction.set(stored: .dictionary(dictionary), forKey: key)
                }
            }
        }
    }

    static func kindMismatch(_ key: String, _ old: Any, _ what: String) -> CLIError {
        .failed("the key \(Arguments.quote(key)) holds \(OldStylePlist.kind(of: old)), and \(what); nothing was written (write it with -array or -dict to replace it)")
    }
}
