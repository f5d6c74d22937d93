import AppGroupContainer
import AppGroupTesting
import Foundation

/// A simulated device for one test: `root/` (the container root), `outside/` (where
/// planted links point; nothing may ever be written there) and `scratch/` (files
/// the writers share from), with the identities the probes run as. Removed when
/// the test ends.
package final class Sandbox: @unchecked Sendable {
    package static let group = "group.ai.systenics.reliability"
    package let device: SimulatedDevice
    package let app: Entitlements
    package let share: Entitlements
    package let outsider: Entitlements

    package var base: URL { device.directory }
    package var root: URL { device.root }
    package var outside: URL { device.outside }
    package var scratch: URL { device.scratch }

    package init() throws {
        device = try SimulatedDevice(name: "Sandbox")
        app = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.reliability", applicationGroups: [Self.group])
        share = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.reliability.share", applicationGroups: [Self.group])
        outsider = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.other")
    }

    package func resolver(_ identity: Entitlements? = nil) -> ContainerResolver {
        ContainerResolver(root: root, entitlements: identity ?? app)
    }

    /// The environment that makes a probe act as `identity` on this sandbox's root
    /// (or on `root` when given).
    package func environment(_ identity: Entitlements, root: URL? = nil) -> [String: String] {
        var environment = device.environment(identity: identity, extra: ["APP_GROUP_QUIET": "1"])
        if let root { environment[ContainerResolver.rootEnvironmentKey] = root.path }
        return environment
    }

    /// Every path under `outside/` (must stay empty but for what a test put there).
    package func outsideContents() -> [String] {
        (FileManager.default.enumerator(atPath: outside.path)?.allObjects as? [String] ?? []).sorted()
    }
}

/// Starts ReliabilityProbe (Tests/Probes/ReliabilityProbe) with `arguments` and exactly `environment`.
package func reliabilityProbe(_ arguments: [String], environment: [String: String]) throws -> LaunchedProcess {
    try LaunchedProcess(built: "ReliabilityProbe", arguments: arguments, environment: environment)
}

extension Sandbox {
    /// A live share-extension writer (ReliabilityProbe `inbox-enqueue --id w`): it
    /// enqueues 3 of `count` items, prints "paused" and waits until `resume` exists,
    /// then enqueues the rest and stays alive (`--stay`), so a test can tamper with
    /// the log of a writer that is not gone. Kill it when done.
    package func pausedInboxWriter(count: Int) throws -> (writer: LaunchedProcess, resume: URL) {
        let resume = scratch.appendingPathComponent("resume")
        let writer = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "w", "--count", String(count),
                                           "--pause-after", "3", "--resume", resume.path, "--stay"],
                                          environment: environment(share))
        return (writer, resume)
    }
}
