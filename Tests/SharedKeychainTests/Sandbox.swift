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

/// Runs the global SecItem functions as `keychain`'s identity.
func asProcess<T>(_ keychain: Keychain, _ body: () throws -> T) rethrows -> T {
    try Keychain.withCurrent(keychain, body)
}
