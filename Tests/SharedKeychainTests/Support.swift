import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedKeychain
import Testing

/// A fresh temporary root holding one simulated device; removed by `remove()`.
struct Sandbox {
    let root: URL
    let device: KeychainDevice

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("SharedKeychainTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        device = try KeychainDevice(root: root, name: "phone")
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func keychain(_ identity: Entitlements, _ behavior: Keychain.Behavior = .iOS) -> Keychain {
        Keychain(device: device, identity: identity, behavior: behavior)
    }

    /// The environment that makes a probe process run as `identity` on this device.
    func environment(_ identity: Entitlements, behavior: String = "iOS", extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in identity.environment { env[key] = value }
        env[ContainerResolver.rootEnvironmentKey] = root.path
        env[KeychainDevice.environmentKey] = device.name
        env[Keychain.Behavior.environmentKey] = behavior
        for (key, value) in extra { env[key] = value }
        return env
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

/// A finished probe process.
struct ProbeResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs the KeychainProbe executable built beside the test bundle.
enum Probe {
    static let url = SimulatedDevice.builtExecutable(named: "KeychainProbe")

    /// A started probe; `finish()` waits for it and collects its output.
    final class Running: @unchecked Sendable {
        let process = Process()
        let out = Pipe()
        let err = Pipe()

        init(_ arguments: [String], environment: [String: String]) throws {
            guard let url = Probe.url else { throw ProbeMissing() }
            process.executableURL = url
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = out
            process.standardError = err
            try process.run()
        }

        func finish() -> ProbeResult {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ProbeResult(status: process.terminationStatus,
                               stdout: String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
                               stderr: String(decoding: stderr, as: UTF8.self))
        }

        /// Reads stdout until `line` appears or the deadline passes.
        func waitForLine(_ line: String, seconds: Double) -> Bool {
            let handle = out.fileHandleForReading
            var seen = ""
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let chunk = handle.availableData
                if chunk.isEmpty { return false }
                seen += String(decoding: chunk, as: UTF8.self)
                if seen.contains(line) { return true }
            }
            return false
        }
    }

    struct ProbeMissing: Error, CustomStringConvertible {
        var description: String { "KeychainProbe was not found beside the test bundle: run `swift build` first" }
    }

    static func run(_ arguments: [String], _ environment: [String: String]) throws -> ProbeResult {
        try Running(arguments, environment: environment).finish()
    }
}

/// Runs the global SecItem functions as `keychain`'s identity.
func asProcess<T>(_ keychain: Keychain, _ body: () throws -> T) rethrows -> T {
    try Keychain.withCurrent(keychain, body)
}
