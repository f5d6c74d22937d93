import AppGroupContainer
import Foundation
import SharedDefaults
import ShareInbox

/// The simulated app and extension the cases run as: one App Group, a container
/// root per case (a scratch directory), passed to child processes as `--root`.
enum BenchIdentity {
    static let group = "group.ai.bench"

    /// The identity of a process: `app` or an extension; every one holds the group.
    static func entitlements(_ bundle: String = "ai.bench.app") throws -> Entitlements {
        try Entitlements(teamIdentifier: "B3NCH12345", bundleIdentifier: bundle, applicationGroups: [group])
    }

    static func resolver(root: URL, bundle: String = "ai.bench.app") throws -> ContainerResolver {
        ContainerResolver(root: root, entitlements: try entitlements(bundle))
    }

    /// The group's shared suite under `root` (durable, binary: the defaults).
    static func defaults(root: URL) throws -> SharedDefaults {
        try SharedDefaults(requiringSuiteName: group, resolver: try resolver(root: root))
    }

    /// The group's share inbox under `root`, as `bundle`.
    static func inbox(root: URL, bundle: String = "ai.bench.app", durable: Bool = true) throws -> ShareInbox {
        try ShareInbox(groupIdentifier: group, resolver: try resolver(root: root, bundle: bundle), durable: durable)
    }

    /// The root a child was given with `--root`.
    static func root(_ options: Options) throws -> URL { URL(fileURLWithPath: try options.string("root"), isDirectory: true) }
}
