import AppGroupContainer
import Foundation

/// `appgroup create GROUP` / `create --bundle BUNDLE`: a container made on purpose.
enum CreateCommand {
    static let help = """
        usage: appgroup create [--root DIR] GROUP
               appgroup create [--root DIR] --bundle BUNDLE

        Makes the container of the App Group GROUP (or, with --bundle, the app's own
        container) with the layout an app's first use makes (Library, Library/Caches,
        Library/Preferences; directories 0700), and prints its path. For fixtures: a test
        prepares a device, then imports suites into it. A container already there is
        left as it is and its path printed. The root is made if missing.
        Every other command only looks: none of them creates a container.

        Options:
          --bundle ID   the app's own container (Applications/ID) instead of a group's
          --root DIR    the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)

        Fails (exit 64) for an invalid identifier, (exit 1) when a symbolic link or a file
        stands where the container belongs, or a directory is another user's.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["root", "bundle"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        let named = try Inspector.Named(arguments)
        let inspector = try Inspector(rootOption: arguments.option("root"))
        do {
            switch named {
            case .bundle(let bundle):
                let identity = try Entitlements(teamIdentifier: Inspector.teamIdentifier, bundleIdentifier: bundle, applicationGroups: [])
                let resolver = ContainerResolver(root: inspector.root, entitlements: identity)
                Output.line(try making { try resolver.requireApplicationContainerURL() }.path)
            case .group(let raw):
                let group = try GroupIdentifier(raw)
                let resolver = try inspector.resolver(for: group)
                Output.line(try making { try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group.rawValue) }.path)
            }
        } catch let error as AppGroupError {
            // Raised by the identifier checks: the making itself throws CLIError.
            throw CLIError.usage("\(error)")
        }
    }

    private static func making(_ body: () throws -> URL) throws -> URL {
        do {
            return try body()
        } catch {
            throw CLIError.failed("cannot make the container: \(error)")
        }
    }
}
