/// `appgroup path [--root DIR] GROUP` (or `--bundle BUNDLE`): a container's
/// directory, as `xcrun simctl get_app_container booted BUNDLE group.ID` (or `data`) prints it.
enum PathCommand {
    static let help = """
        usage: appgroup path [--root DIR] GROUP
               appgroup path [--root DIR] --bundle BUNDLE

        Prints the container directory of the App Group GROUP, as
        `xcrun simctl get_app_container booted BUNDLE GROUP` does, so that
        `cd "$(appgroup path group.com.example)"` works.

        The group must have a container already (made when an app or extension first
        resolves it, or by `appgroup create`); path never creates one. It acts as an
        identity entitled to GROUP. With --bundle it prints the app's own container
        instead (Applications/BUNDLE, where its private suites live), as
        `xcrun simctl get_app_container booted BUNDLE data` does.

        Options:
          --bundle ID  the app's own container instead of a group's
          --root DIR   the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root", "bundle"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let named = try Inspector.Named(arguments)
        let inspector = try Inspector(rootOption: arguments.option("root"))
        switch named {
        case .bundle(let bundle): Output.line(try inspector.existingApplication(bundle).container.path)
        case .group(let group): Output.line(try inspector.existingGroup(group).container.path)
        }
    }
}
