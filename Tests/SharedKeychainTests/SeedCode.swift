// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Darwin)

// The platform guides' example code, kept as the guides write it, imports
// included: on Linux `import Security` is this package's Security module (see
// Package.swift), which re-exports SharedKeychain. The one edit, marked where it
// is, is `: Sendable` on KeychainManager (see there).
import Foundation
import Security

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

func purgeLeftoversOnFreshInstall() {
    let marker = "vault.didLaunch"
    guard !UserDefaults.standard.bool(forKey: marker) else { return }
    let scoped: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccessGroup as String: SharedVault.group
    ]
    SecItemDelete(scoped as CFDictionary)
    UserDefaults.standard.set(true, forKey: marker)
}

// MARK: The KeychainManager of the second guide

enum KeychainError: Error {
    case itemNotFound
    case duplicateItem
    case invalidData
    case unexpectedStatus(OSStatus)
}

// Edit: `: Sendable` added. This package builds in the Swift 6 language mode,
// which refuses a `static let` of a non-Sendable class; the guide's code targets
// an app in the Swift 5 mode (or with main-actor default isolation), where it
// compiles. The class has only a constant string, so the conformance is sound.
final class KeychainManager: Sendable {

    static let shared = KeychainManager()

    private init() {}

    private let service = "com.justacademy.iosapp"
}

extension KeychainManager {
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
}

extension KeychainManager {
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
}

extension KeychainManager {
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
}

extension KeychainManager {
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
}

extension KeychainManager {
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
