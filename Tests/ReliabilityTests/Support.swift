import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// How hard the tests push: the normal run fits `swift test` on two busy cores;
/// `APP_GROUP_SOAK=1` runs the deep version (see the Reliability article of AppGroupContainer's documentation).
enum Load {
    static let environment = ProcessInfo.processInfo.environment
    static let soak = environment["APP_GROUP_SOAK"] == "1"

    static func number(_ key: String, normal: Int, soak soakValue: Int) -> Int {
        if let text = environment[key], let value = Int(text) { return value }
        return soak ? soakValue : normal
    }

    /// SIGKILLs of writers in the crash test.
    static var kills: Int { number("APP_GROUP_SOAK_KILLS", normal: 500, soak: 5000) }
    /// Lock holders killed.
    static var lockDeaths: Int { number("APP_GROUP_SOAK_LOCK_DEATHS", normal: 100, soak: 1000) }
    /// Mutated inputs per reader in the fuzz tests.
    static var fuzzInputs: Int { number("APP_GROUP_SOAK_FUZZ", normal: 10_000, soak: 200_000) }
    /// Seconds the 8-process soak runs.
    static var soakSeconds: Int { number("APP_GROUP_SOAK_SECONDS", normal: 60, soak: 600) }
    /// The fuzz seed (fixed unless given).
    static var seed: UInt64 { UInt64(environment["APP_GROUP_SOAK_SEED"] ?? "") ?? 0x5EED_0AB1_E5 }
}

/// A simulated device for one test: `root/` (the container root), `outside/` (where
/// planted links point; nothing may ever be written there) and `scratch/` (files
/// the writers share from), with the identities the probes run as. Removed when
/// the test ends.
final class Sandbox: @unchecked Sendable {
    static let group = "group.ai.systenics.reliability"
    let device: SimulatedDevice
    let app: Entitlements
    let share: Entitlements
    let outsider: Entitlements

    var base: URL { device.directory }
    var root: URL { device.root }
    var outside: URL { device.outside }
    var scratch: URL { device.scratch }

    init() throws {
        device = try SimulatedDevice(name: "ReliabilityTests")
        app = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.reliability", applicationGroups: [Self.group])
        share = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.reliability.share", applicationGroups: [Self.group])
        outsider = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.other")
    }

    func resolver(_ identity: Entitlements? = nil) -> ContainerResolver {
        ContainerResolver(root: root, entitlements: identity ?? app)
    }

    /// The environment that makes a probe act as `identity` on this sandbox's root
    /// (or on `root` when given).
    func environment(_ identity: Entitlements, root: URL? = nil) -> [String: String] {
        var environment = device.environment(identity: identity, extra: ["APP_GROUP_QUIET": "1"])
        if let root { environment[ContainerResolver.rootEnvironmentKey] = root.path }
        return environment
    }

    /// Every path under `outside/` (must stay empty but for what a test put there).
    func outsideContents() -> [String] {
        (FileManager.default.enumerator(atPath: outside.path)?.allObjects as? [String] ?? []).sorted()
    }
}

/// Starts ReliabilityProbe (Sources/ReliabilityProbe) with `arguments` and exactly `environment`.
func reliabilityProbe(_ arguments: [String], environment: [String: String]) throws -> LaunchedProcess {
    try LaunchedProcess(built: "ReliabilityProbe", arguments: arguments, environment: environment)
}

/// Runs `body(lane)` for each lane on its own thread and waits for all of them
/// (threads, not the cooperative pool: the bodies block on child processes).
func onThreads(_ lanes: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for lane in 0..<lanes {
        group.enter()
        Thread.detachNewThread {
            body(lane)
            group.leave()
        }
    }
    group.wait()
}

/// A tally shared by threads.
final class Tally<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
    var current: Value { lock.withLock { value } }
}

/// Figures the tests measured, printed at the end of each test for the Reliability article.
func report(_ text: String) {
    print("[reliability] " + text)
}

/// Every entry under `directory` (recursively), with its lstat mode.
func walk(_ directory: URL) -> [(path: String, mode: mode_t)] {
    var result: [(String, mode_t)] = []
    guard let names = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] else { return [] }
    for name in names {
        var st = stat()
        let path = directory.appendingPathComponent(name).path
        if lstat(path, &st) == 0 { result.append((path, st.st_mode)) }
    }
    return result
}
