// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Darwin)

import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import Security

// The guide's error has no Equatable conformance; the tests compare its cases.
extension KeychainError: Equatable {
    static func == (a: KeychainError, b: KeychainError) -> Bool { String(describing: a) == String(describing: b) }
}

/// The seeds' own functions, run unchanged against the emulator as the identities
/// of the seeds' target table.
@Suite(.dedicatedThreads) struct SeedExampleTests {
    @Test func publishedSessionTokenIsReadByTheShareExtension() throws {
        let box = try Sandbox()
        defer { box.remove() }
        #expect(asProcess(box.keychain(Targets.app)) { publishSessionToken(Data("token-1".utf8)) } == errSecSuccess)
        #expect(asProcess(box.keychain(Targets.share)) { readSessionTokenInExtension() } == Data("token-1".utf8))

        // A second publish takes the seed's duplicate-then-update path.
        #expect(asProcess(box.keychain(Targets.app)) { publishSessionToken(Data("token-2".utf8)) } == errSecSuccess)
        #expect(asProcess(box.keychain(Targets.widget)) { readSessionTokenInExtension() } == Data("token-2".utf8))
        #expect(try box.device.itemCount() == 1)

        // Stored as the seed asks: AfterFirstUnlockThisDeviceOnly, in the vault group.
        let attributes = try box.keychain(Targets.share).copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: SharedVault.service,
            kSecReturnAttributes as String: true]) as? [String: Any]
        #expect(attributes?[kSecAttrAccessGroup as String] as? String == SharedVault.group)
        #expect(attributes?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)
    }

    @Test func extensionWithoutKeychainSharingGetsMissingEntitlement() throws {
        let box = try Sandbox()
        defer { box.remove() }
        #expect(asProcess(box.keychain(Targets.app)) { publishSessionToken(Data("t".utf8)) } == errSecSuccess)
        #expect(asProcess(box.keychain(Targets.bareExtension)) { readSessionTokenInExtension() } == nil)
        // The seed's comment: -34018 when the entitlement is missing, even though the host app has it.
        #expect(asProcess(box.keychain(Targets.bareExtension)) { publishSessionToken(Data("t".utf8)) } == errSecMissingEntitlement)
        #expect(asProcess(box.keychain(Targets.bareExtension, .iOS12)) { publishSessionToken(Data("t".utf8)) } == errSecItemNotFound)
    }

    @Test func syncedPreferenceKeyIsSeenOnlyBySyncAwareQueries() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(asProcess(app) { publishSyncedPreferenceKey(Data("k1".utf8)) } == errSecSuccess)
        // The update path: the seed's update query names kSecAttrSynchronizable, so it finds the item.
        #expect(asProcess(app) { publishSyncedPreferenceKey(Data("k2".utf8)) } == errSecSuccess)
        #expect(try box.device.itemCount() == 1)

        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.vault.sync",
            kSecAttrAccount as String: "reader-settings-key",
            kSecReturnData as String: true,
        ]
        var found: CFTypeRef?
        // Without kSecAttrSynchronizable, synced items are excluded.
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, &found) } == errSecItemNotFound)
        query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, &found) } == errSecSuccess)
        #expect(found as? Data == Data("k2".utf8))
        query[kSecAttrSynchronizable as String] = true
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, &found) } == errSecSuccess)
        query[kSecAttrSynchronizable as String] = false
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, &found) } == errSecItemNotFound)
        // A delete without the attribute leaves the synced item alone.
        let plainDelete: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.vault.sync"]
        #expect(asProcess(app) { SecItemDelete(plainDelete as CFDictionary) } == errSecItemNotFound)
        #expect(try box.device.itemCount() == 1)
    }

    @Test func synchronizableThisDeviceOnlyIsRefusedAndNothingIsStored() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let insert: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.vault.sync",
            kSecAttrAccount as String: "reader-settings-key",
            kSecAttrSynchronizable as String: kCFBooleanTrue as Any,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            kSecValueData as String: Data("secret".utf8),
        ]
        #expect(asProcess(box.keychain(Targets.app)) { SecItemAdd(insert as CFDictionary, nil) } == errSecParam)
        #expect(try box.device.itemCount() == 0)
    }

    @Test func moveItemReadsAddsThenDeletes() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        let appOnly = Targets.app.applicationIdentifier
        try app.add(Data("s3cret".utf8), for: GenericPassword(service: SharedVault.service, account: "alice", accessGroup: appOnly))
        // Before the move the share extension cannot see the app's private item.
        #expect(try box.keychain(Targets.share).readIfPresent(GenericPassword(service: SharedVault.service, account: "alice")) == nil)

        #expect(asProcess(app) { moveItem(account: "alice", from: appOnly, to: SharedVault.group) })
        #expect(try box.keychain(Targets.share).read(GenericPassword(service: SharedVault.service, account: "alice")) == Data("s3cret".utf8))
        #expect(try app.readIfPresent(GenericPassword(service: SharedVault.service, account: "alice", accessGroup: appOnly)) == nil)

        // A move to a group the app lacks fails at the add, and the original stays.
        #expect(!asProcess(app) { moveItem(account: "alice", from: SharedVault.group, to: "A1B2C3D4E5.com.other.vault") })
        #expect(try app.read(GenericPassword(service: SharedVault.service, account: "alice", accessGroup: SharedVault.group)) == Data("s3cret".utf8))
    }

    @Test func updateCannotChangeTheAccessGroup() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try app.add(Data("v".utf8), for: GenericPassword(service: "s", account: "a"))
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
        let change: [String: Any] = [kSecAttrAccessGroup as String: Targets.suite]
        #expect(asProcess(app) { SecItemUpdate(query as CFDictionary, change as CFDictionary) } == errSecParam)
        let attributes = try app.copyMatching(query.merging([kSecReturnAttributes as String: true]) { $1 }) as? [String: Any]
        #expect(attributes?[kSecAttrAccessGroup as String] as? String == Targets.vault)
    }

    @Test func purgeOnFreshInstallRemovesOnlyTheScopedLeftovers() throws {
        let box = try Sandbox()
        defer { box.remove() }
        // The guide's flag lives in UserDefaults.standard: a fresh install has none.
        UserDefaults.standard.removeObject(forKey: "vault.didLaunch")
        defer { UserDefaults.standard.removeObject(forKey: "vault.didLaunch") }

        // First install: the app publishes a token; a sibling app uses the same group.
        let app = box.keychain(Targets.app)
        let sibling = box.keychain(Targets.make("com.example.notes"))
        #expect(asProcess(app) { publishSessionToken(Data("old".utf8)) } == errSecSuccess)
        try sibling.add(Data("notes".utf8), for: GenericPassword(service: "com.example.notes.sync", account: "x", accessGroup: SharedVault.group))
        let container = try ContainerResolver(root: box.root, entitlements: Targets.app)
            .requireContainerURL(forSecurityApplicationGroupIdentifier: Targets.suite)

        // "Uninstall": the app's container and defaults go; keychain items stay.
        try FileManager.default.removeItem(at: container)
        #expect(try box.device.itemCount() == 2)
        #expect(asProcess(box.keychain(Targets.share)) { readSessionTokenInExtension() } == Data("old".utf8))

        // Fresh install, first launch: the scoped delete removes the leftover token only.
        asProcess(app) { purgeLeftoversOnFreshInstall() }
        #expect(asProcess(app) { readSessionTokenInExtension() } == nil)
        #expect(try sibling.read(GenericPassword(service: "com.example.notes.sync", account: "x")) == Data("notes".utf8))

        // Later launches keep what the new install stores.
        #expect(asProcess(app) { publishSessionToken(Data("new".utf8)) } == errSecSuccess)
        asProcess(app) { purgeLeftoversOnFreshInstall() }
        #expect(asProcess(app) { readSessionTokenInExtension() } == Data("new".utf8))
    }

    @Test func keychainManagerSaveReadUpdateDelete() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let manager = KeychainManager.shared
        try asProcess(box.keychain(Targets.app)) {
            try manager.save(password: "hunter2", account: "alice")
            #expect(try manager.read(account: "alice") == "hunter2")
            #expect(throws: KeychainError.duplicateItem) { try manager.save(password: "again", account: "alice") }
            try manager.update(password: "correct horse", account: "alice")
            #expect(try manager.read(account: "alice") == "correct horse")
            #expect(throws: KeychainError.itemNotFound) { try manager.update(password: "x", account: "bob") }
            try manager.delete(account: "alice")
            #expect(throws: KeychainError.itemNotFound) { try manager.read(account: "alice") }
            try manager.delete(account: "alice")   // deleting nothing is tolerated, as the seed intends

            try manager.saveOrUpdate(value: "access-1", account: "user_access_token")
            try manager.saveOrUpdate(value: "access-2", account: "user_access_token")
            #expect(try manager.read(account: "user_access_token") == "access-2")
        }
        #expect(try box.device.itemCount() == 1)
        // The seed's items went to the default group: the first keychain-access-group.
        let attributes = try box.keychain(Targets.app).copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true]) as? [String: Any]
        #expect(attributes?[kSecAttrAccessGroup as String] as? String == Targets.vault)
    }

    @Test func keychainManagerReadFailsWhileLocked() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let manager = KeychainManager.shared
        try asProcess(box.keychain(Targets.app)) { try manager.save(password: "pw", account: "alice") }
        try box.device.lock()
        #expect(throws: KeychainError.unexpectedStatus(errSecInteractionNotAllowed)) {
            try asProcess(box.keychain(Targets.app)) { try manager.read(account: "alice") }
        }
        try box.device.unlock()
        #expect(try asProcess(box.keychain(Targets.app)) { try manager.read(account: "alice") } == "pw")
    }
}

#endif
