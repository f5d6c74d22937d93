import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedDefaults

/// A simulated device and the identities of a simulated app and its share
/// extension, both entitled to one group; removed when the test ends.
final class Device {
    static let group = "group.ai.systenics.notes"
    let simulated: SimulatedDevice
    let app: Entitlements
    let share: Entitlements
    let outsider: Entitlements

    /// The device's container root.
    var root: URL { simulated.root }

    init() throws {
        simulated = try SimulatedDevice(name: "SharedDefaultsTests")
        app = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes", applicationGroups: [Self.group])
        share = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes.share", applicationGroups: [Self.group])
        outsider = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.other")
    }

    func resolver(_ identity: Entitlements? = nil) -> ContainerResolver {
        ContainerResolver(root: root, entitlements: identity ?? app)
    }

    func defaults(_ suite: String? = Device.group, as identity: Entitlements? = nil) throws -> SharedDefaults {
        try SharedDefaults(requiringSuiteName: suite, resolver: resolver(identity))
    }

    /// Starts DefaultsProbe (Tests/Probes/DefaultsProbe) with `arguments`, as `identity`;
    /// `quiet: false` keeps its diagnostics on standard error. Foundation's own
    /// preferences directory (`XDG_CONFIG_HOME`) is ``foundationPreferences``.
    func probe(_ arguments: [String], as identity: Entitlements? = nil, quiet: Bool = true) throws -> LaunchedProcess {
        let extra = quiet ? ["APP_GROUP_QUIET": "1"] : [:]
        return try LaunchedProcess(built: "DefaultsProbe", arguments: arguments,
                                   environment: simulated.environment(identity: identity ?? share,
                                                                      extra: extra.merging(["XDG_CONFIG_HOME": foundationPreferences.path]) { $1 }))
    }

    /// Where Foundation's UserDefaults would write in a probe: must stay empty.
    var foundationPreferences: URL { simulated.scratch.appendingPathComponent("xdg-config", isDirectory: true) }
}
