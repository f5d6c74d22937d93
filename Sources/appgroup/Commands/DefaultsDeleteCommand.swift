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
        or a corrupt suite file (which it leaves as it is).
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: DefaultsSuite.options, flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let (suite, rest) = try DefaultsSuite.open(arguments, expecting: 0...1, "[KEY]")
        // Reports a missing suite or a corrupt file before changing anything.
        _ = try suite.values()
        let key = rest.first
        try DefaultsSuite.translating {
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
    }
}
