/// `appgroup path [--root DIR] GROUP`: the group's container directory, as
/// `xcrun simctl get_app_container booted BUNDLE group.ID` prints it.
enum PathCommand {
    static let help = """
        usage: appgroup path [--root DIR] GROUP

        Prints the container directory of the App Group GROUP, as
        `xcrun simctl get_app_container booted BUNDLE GROUP` does, so that
        `cd "$(appgroup path group.com.example)"` works.

        The group must have a container already (made when an app or extension first
        resolves it); appgroup never creates one. It acts as an identity entitled to GROUP.

        Options:
          --root DIR   the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(1...1, "GROUP")
        let inspector = try Inspector(rootOption: arguments.option("root"))
        Output.line(try inspector.existingGroup(arguments.positionals[0]).container.path)
    }
}
