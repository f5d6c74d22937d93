import AppGroupContainer
import Foundation
import ProbeSupport

/// The targets of the SharedKeychain tests (Tests/SharedKeychainTests/Targets.swift),
/// so that what this probe writes is what those tests read.
enum Targets {
    static let team = "A1B2C3D4E5"
    static let vault = "A1B2C3D4E5.com.example.vault"
    static let suite = "group.com.example.suite"

    static func make(_ bundle: String, sharing: Bool = true, groups: [String] = [suite]) -> Entitlements {
        do {
            return try Entitlements(teamIdentifier: team, bundleIdentifier: bundle, applicationGroups: groups,
                                    keychainAccessGroups: sharing ? [vault] : [])
        } catch {
            fail("the probe's own target \(bundle) is invalid: \(error)")
        }
    }

    static let app = make("com.example.reader")
    static let share = make("com.example.reader.share")
    static let widget = make("com.example.reader.widget")
    static let notify = make("com.example.reader.notify", sharing: false)
    static let stranger = make("com.example.stranger", sharing: false, groups: [])

    /// `identity` on the device at `--root`, with the keychain device `phone`.
    static func scope(_ identity: Entitlements) -> IdentityScope {
        IdentityScope(entitlements: identity, root: URL(fileURLWithPath: option("root"), isDirectory: true),
                      environment: ["APP_GROUP_KEYCHAIN_DEVICE": "phone"])
    }
}
