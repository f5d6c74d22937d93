/// `appgroup defaults rename GROUP [--suite NAME] OLD NEW`.
enum DefaultsRenameCommand {
    static let help = """
        usage: appgroup defaults rename [--root DIR] GROUP [--suite NAME] OLD_KEY NEW_KEY
               appgroup defaults rename [--root DIR] --bundle BUNDLE [--suite NAME] OLD_KEY NEW_KEY

        Renames OLD_KEY to NEW_KEY in a defaults suite, as `defaults rename` does: the
        value moves, replacing any value NEW_KEY held. One atomic save under the suite's
        write lock, through SharedDefaults.

        Options:
          --suite NAME  the suite (default: the group's own, named after the group)
          --bundle ID   instead of GROUP: the app's private suites (default: its own domain)
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 1), changing nothing, for an unknown group, a suite or OLD_KEY that
        does not exist or a corrupt suite file.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 2...2, "OLD_KEY NEW_KEY")
        guard rest.count == 2 else { throw CLIError.usage("missing arguments: expected OLD_KEY NEW_KEY") }
        let (old, new) = (rest[0], rest[1])
        _ = try suite.values() // the existence and corruption checks, with their messages
        try DefaultsSuite.translating {
            try suite.defaults.transaction { transaction in
                // The stored form moves, not a Foundation value: nested keys keep every
                // spelling, integers their range, reals their bits.
                guard let stored = transaction.keys.first(where: { $0.utf8.elementsEqual(old.utf8) }),
                      let value = transaction.storedValue(forKey: stored) else {
                    throw CLIError.notFound("the domain/default pair of (\(suite.name), \(old)) does not exist: no key \(Arguments.quote(old)) in \(suite.label); nothing was changed")
                }
                if stored.utf8.elementsEqual(new.utf8) { return }
                transaction.removeObject(forKey: stored)
                try transaction.set(stored: value, forKey: new)
            }
        }
    }
}
