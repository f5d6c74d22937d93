// snippet.hide
// The test the ProtectedItems article shows, run as it shows it: the app's own
// keychain code (a Face ID protected secret) run as the app, against a scripted sensor.
#if !canImport(Darwin)
import AppGroupTesting
import Foundation
import LocalAuthentication
import Security
import SharedKeychain
import Testing

private let appTarget = SimulatedTarget(name: "Reader", kind: .app, entitlements: Targets.app)

/// The app's save: `SecItemAdd` with a biometry access control.
private func saveProtectedSecret(_ secret: String) -> OSStatus {
    var error: Unmanaged<CFError>?
    guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                       .biometryCurrentSet, &error) else { return errSecParam }
    return SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "card",
                       kSecValueData as String: Data(secret.utf8), kSecAttrAccessControl as String: access] as CFDictionary, nil)
}

/// The app's read: `SecItemCopyMatching` with `kSecReturnData` and a fresh LAContext
/// (so each read prompts); nil when the user cancelled or failed.
private func readProtectedSecret() -> String? {
    let context = LAContext()
    context.localizedReason = "Unlock your vault"
    var result: CFTypeRef?
    let status = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "card",
                                      kSecReturnData as String: true, kSecUseAuthenticationContext as String: context] as CFDictionary,
                                     &result)
    return status == errSecSuccess ? (result as? Data).map { String(decoding: $0, as: UTF8.self) } : nil
}

// snippet.show
@Test func theUserCancelsFaceIDThenMatches() throws {
    let device = try SimulatedDevice()                      // AppGroupTesting: a temporary root
    defer { device.remove() }
    let sensor = try KeychainDevice(root: device.root)
    let app = Keychain(device: sensor, identity: appTarget.entitlements)
    try Keychain.withCurrent(app) {                         // SecItem... calls run as the app
        #expect(saveProtectedSecret("card-1234") == errSecSuccess)
        try sensor.scriptBiometry([.cancel, .match])
        #expect(readProtectedSecret() == nil)               // errSecUserCanceled (-128) inside
        #expect(readProtectedSecret() == "card-1234")
    }
    #expect(try sensor.biometry().presentedPrompts.count == 2)
}
// snippet.hide
#endif
