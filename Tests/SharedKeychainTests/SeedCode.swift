// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Security)

import Foundation
import SharedKeychain

// The seeds' example code, ported with as few changes as possible: only
// `import Security` is gone, and `purgeLeftoversOnFreshInstall` takes its
// UserDefaults (the seed uses .standard) so that each test has its own.

enum SharedVault {
    static let group = "A1B2C3D4E5.com.example.vault"
    static let service = "com.example.vault.session"
}

func publishSessionToken(_ token: Data) -> OSStatus {
    let identity: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccessGroup as String: SharedVault.group,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccount as String: "active-user"
    ]
    var insert = identity
    insert[kSecValueData as String] = token
    insert[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly

    let added = SecItemAdd(insert as CFDictionary, nil)
    guard added == errSecDuplicateItem else { return added }   // -34018: entitlement missing
    let changes: [String: Any] = [kSecValueData as String: token]
    return SecItemUpdate(identity as CFDictionary, changes as CFDictionary)
}

func readSessionTokenInExtension() -> Data? {
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccessGroup as String: SharedVault.group,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccount as String: "active-user",
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne
    ]
    var found: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess else { return nil }
    return found as? Data
}

func publishSyncedPreferenceKey(_ secret: Data) -> OSStatus {
    let identity: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccessGroup as String: SharedVault.group,
        kSecAttrService as String: "com.example.vault.sync",
        kSecAttrAccount as String: "reader-settings-key",
        kSecAttrSynchronizable as String: kCFBooleanTrue as Any
    ]
    var insert = identity
    insert[kSecValueData as String] = secret
    insert[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock

    let added = SecItemAdd(insert as CFDictionary, nil)
    guard added == errSecDuplicateItem else { return added }
    return SecItemUpdate(identity as CFDictionary,
                         [kSecValueData as String: secret] as CFDictionary)
}

func moveItem(account: String, from oldGroup: String, to newGroup: String) -> Bool {
    let source: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccount as String: account,
        kSecAttrAccessGroup as String: oldGroup
    ]
    var lookup = source
    lookup[kSecReturnData as String] = true
    var value: CFTypeRef?
    guard SecItemCopyMatching(lookup as CFDictionary, &value) == errSecSuccess,
          let secret = value as? Data else { return false }

    var target = source
    target[kSecAttrAccessGroup as String] = newGroup
    target[kSecValueData as String] = secret
    target[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    let added = SecItemAdd(target as CFDictionary, nil)
    guard added == errSecSuccess || added == errSecDuplicateItem else { return false }

    return SecItemDelete(source as CFDictionary) == errSecSuccess
}

func purgeLeftoversOnFreshInstall(_ defaults: UserDefaults) {
    let marker = "vault.didLaunch"
    guard !defaults.bool(forKey: marker) else { return }
    let scoped: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccessGroup as String: SharedVault.group
    ]
    SecItemDelete(scoped as CFDictionary)
    defaults.set(true, forKey: marker)
}

// MARK: The KeychainManager of the second seed

enum KeychainError: Error, Equatable {
    case itemNotFound
    case duplicateItem
    case invalidData
    case unexpectedStatus(OSStatus)
}

final class KeychainManager {
    // The seed's singleton has a private init; tests need one manager per device,
    // and the seed's methods run as the identity bound with Keychain.withCurrent.
    init() {}

    private let service = "com.justacademy.iosapp"

    func save(password: String, account: String) throws {
        guard let passwordData = password.data(using: .utf8) else { throw KeychainError.invalidData }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecValueData as String: passwordData,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else {
            if status == errSecDuplicateItem { throw KeychainError.duplicateItem }
            throw KeychainError.unexpectedStatus(status)
        }
    }

    func read(account: String) throws -> String {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else {
            if status == errSecItemNotFound { throw KeychainError.itemNotFound }
            throw KeychainError.unexpectedStatus(status)
        }
        guard let data = result as? Data, let password = String(data: data, encoding: .utf8) else {
            throw KeychainError.invalidData
        }
        return password
    }

    func update(password: String, account: String) throws {
        guard let passwordData = password.data(using: .utf8) else { throw KeychainError.invalidData }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account
        ]
        let attributes: [String: Any] = [kSecValueData as String: passwordData]
        let status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        guard status == errSecSuccess else {
            if status == errSecItemNotFound { throw KeychainError.itemNotFound }
            throw KeychainError.unexpectedStatus(status)
        }
    }

    func delete(account: String) throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account
        ]
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw KeychainError.unexpectedStatus(status)
        }
    }

    func saveOrUpdate(value: String, account: String) throws {
        guard let data = value.data(using: .utf8) else { throw KeychainError.invalidData }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecDuplicateItem {
            let searchQuery: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account
            ]
            let attributes: [String: Any] = [kSecValueData as String: data]
            let updateStatus = SecItemUpdate(searchQuery as CFDictionary, attributes as CFDictionary)
            guard updateStatus == errSecSuccess else { throw KeychainError.unexpectedStatus(updateStatus) }
        } else if status != errSecSuccess {
            throw KeychainError.unexpectedStatus(status)
        }
    }
}

#endif
