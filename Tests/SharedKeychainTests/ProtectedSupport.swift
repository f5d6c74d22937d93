#if !canImport(Darwin)
import Foundation
@testable import SharedKeychain
import Security

/// Protected items as an app writes them: the Security vocabulary, run as `keychain`'s identity.
enum Protected {
    static let service = "com.example.vault.protected"

    static func control(_ flags: SecAccessControlCreateFlags,
                        _ protection: CFString = kSecAttrAccessibleWhenUnlockedThisDeviceOnly) -> SecAccessControl? {
        SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, nil)
    }

    static func add(_ keychain: Keychain, _ account: String, _ flags: SecAccessControlCreateFlags, value: String = "secret") -> OSStatus {
        guard let control = control(flags) else { return errSecParam }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(value.utf8),
            kSecAttrAccessControl as String: control,
        ]
        return asProcess(keychain) { SecItemAdd(query as CFDictionary, nil) }
    }

    /// SecItemCopyMatching for the item's data, with `extra` keys (a context, the UI key).
    static func read(_ keychain: Keychain, _ account: String, _ extra: [String: Any] = [:]) -> (status: OSStatus, value: String?) {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        query.merge(extra) { $1 }
        var found: CFTypeRef?
        let status = asProcess(keychain) { SecItemCopyMatching(query as CFDictionary, &found) }
        return (status, (found as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    /// How many prompts the device's sensor has shown.
    static func prompts(_ device: KeychainDevice) throws -> Int { try device.biometry().presentedPrompts.count }
}
#endif
