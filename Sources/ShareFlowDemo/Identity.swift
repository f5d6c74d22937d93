import AppGroupContainer
import Foundation
import ShareInbox

/// Who a role runs as and on which device, from its options:
/// - `--entitlements FILE` (with `--team-id`, default A1B2C3D4E5, and `--bundle-id`);
/// - else the identity in the environment (`APP_GROUP_APPLICATION_IDENTIFIER`...,
///   as AppGroupTesting passes it);
/// - else an identity entitled to exactly the `--group` it names.
///
/// The root is `--root`, else `APP_GROUP_CONTAINERS_ROOT`.
struct RoleIdentity {
    let resolver: ContainerResolver
    let group: String

    static let identityOptions: Set<String> = ["root", "group", "entitlements", "team-id", "bundle-id"]
    static let defaultTeam = "A1B2C3D4E5"

    /// `bundleSuffix` makes the default bundle id: `group.ai.x` gives `ai.x` + suffix.
    init(_ arguments: Arguments, bundleSuffix: String) throws {
        group = try arguments.require("group")
        // The group first: a bad one would otherwise surface as a bad bundle
        // identifier derived from it, which the user never typed.
        // Exit 1 with the group's own reason, as the role's help says.
        _ = try GroupIdentifier(group)
        let environment = ProcessInfo.processInfo.environment
        guard let rootPath = arguments.string("root") ?? environment[ContainerResolver.rootEnvironmentKey].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw UsageError(message: "missing --root (or APP_GROUP_CONTAINERS_ROOT)")
        }
        let team = arguments.string("team-id") ?? Self.defaultTeam
        let derived = group.hasPrefix("group.") ? String(group.dropFirst(6)) : String(group.drop(while: { $0 != "." }).dropFirst())
        let bundle = arguments.string("bundle-id") ?? (derived.isEmpty ? "com.example" : derived) + bundleSuffix
        let entitlements: Entitlements
        if let file = arguments.string("entitlements") {
            entitlements = try Entitlements(contentsOf: URL(fileURLWithPath: file), teamIdentifier: team, bundleIdentifier: bundle)
        } else if let inherited = try Entitlements.fromEnvironment(environment) {
            entitlements = inherited
        } else {
            entitlements = try Entitlements(teamIdentifier: team, bundleIdentifier: bundle, applicationGroups: [group])
        }
        resolver = ContainerResolver(root: URL(fileURLWithPath: rootPath, isDirectory: true), entitlements: entitlements)
    }

    /// The group's inbox, as this identity: throws, writing nothing, when the
    /// identity is not entitled or the group is invalid.
    func inbox() throws -> ShareInbox {
        try ShareInbox(groupIdentifier: group, resolver: resolver)
    }
}
