import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedKeychain
import Testing

/// A simulated device holding one keychain device; removed by `remove()`.
struct Sandbox {
    let simulated: SimulatedDevice
    let device: KeychainDevice

    /// The device's container root.
    var root: URL { simulated.root }

    init() throws {
        simulated = try SimulatedDevice(name: "SharedKeychainTests")
        device = try KeychainDevice(root: simulated.root, name: "phone")
    }

    func remove() { simulated.remove() }

    func keychain(_ identity: Entitlements, _ behavior: Keychain.Behavior = .iOS) -> Keychain {
        Keychain(device: device, identity: identity, behavior: behavior)
    }

    /// The environment that makes a probe process run as `identity` on this device.
    func environment(_ identity: Entitlements, behavior: String = "iOS", extra: [String: String] = [:]) -> [String: String] {
        let keychain = [KeychainDevice.environmentKey: device.name, Keychain.Behavior.environmentKey: behavior]
        return simulated.environment(identity: identity, extra: keychain.merging(extra) { $1 })
    }
}

/// The seeds' targets: one team, a Keychain Sharing group and an App Group.
enum Targets {
    static let team = "A1B2C3D4E5"
    static let vault = "A1B2C3D4E5.com.example.vault"
    static let suite = "group.com.example.suite"

    static func make(_ bundle: String, sharing: Bool = true, groups: [String] = [suite]) -> Entitlements {
        // Constant identities known to be valid: a failure is a bug in the test itself.
        try! Entitlements(teamIdentifier: team, bundleIdentifier: bundle, applicationGroups: groups,
                          keychainAccessGroups: sharing ? [vault] : [])
    }

    static let app = make("com.example.reader")
    static let share = make("com.example.reader.share")
    static let widget = make("com.example.reader.widget")
    /// A notification extension whose target lacks the Keychain Sharing capability.
    static let bareExtension = make("com.example.reader.notify", sharing: false)
    /// An app and extension that share only an App Group, no Keychain Sharing.
    static let groupOnlyApp = make("com.example.reader", sharing: false)
    static let groupOnlyShare = make("com.example.reader.share", sharing: false)
}

/// A finished probe process, its standard output trimmed (the probe prints one
/// short answer).
struct ProbeResult {
    let status: Int32
    let stdout: String
    let stderr: String

    init(_ outcome: ProcessOutcome) {
        status = outcome.status
        stdout = outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        stderr = outcome.standardError
    }
}

/// KeychainProbe (Sources/KeychainProbe), the child process these tests spawn.
enum Probe {
    /// Starts the probe with `arguments` and exactly `environment`.
    static func start(_ arguments: [String], environment: [String: String]) throws -> LaunchedProcess {
        try LaunchedProcess(built: "KeychainProbe", arguments: arguments, environment: environment)
    }

    /// Runs the probe to its end (killed after 120 s, a liveness deadline).
    static func run(_ arguments: [String], _ environment: [String: String]) throws -> ProbeResult {
        ProbeResult(try start(arguments, environment: environment).wait(timeout: 120))
    }
}

/// Runs the global SecItem functions as `keychain`'s identity.
func asProcess<T>(_ keychain: Keychain, _ body: () throws -> T) rethrows -> T {
    try Keychain.withCurrent(keychain, body)
}
