// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Darwin)

import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import Security

/// Each error path of the four functions answers Apple's status code.
@Suite(.dedicatedThreads) struct StatusCodeTests {
    static var base: [String: Any] { [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "svc",
        kSecAttrAccount as String: "acct",
    ] }

    func add(_ keychain: Keychain, _ extra: [String: Any] = [:]) -> OSStatus {
        let attributes = Self.base.merging([kSecValueData as String: Data("value".utf8)]) { $1 }.merging(extra) { $1 }
        return asProcess(keychain) { SecItemAdd(attributes as CFDictionary, nil) }
    }

    func copy(_ keychain: Keychain, _ query: [String: Any]) -> (OSStatus, CFTypeRef?) {
        var found: CFTypeRef?
        let status = asProcess(keychain) { SecItemCopyMatching(query as CFDictionary, &found) }
        return (status, found)
    }

    @Test func malformedQueriesAreErrSecParam() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        let noClass: [String: Any] = [kSecAttrService as String: "svc", kSecValueData as String: Data()]
        #expect(asProcess(app) { SecItemAdd(noClass as CFDictionary, nil) } == errSecParam)
        #expect(copy(app, [kSecAttrService as String: "svc"]).0 == errSecParam)
        #expect(asProcess(app) { SecItemDelete([kSecAttrService as String: "svc"] as CFDictionary) } == errSecParam)
        #expect(add(app, [kSecAttrAccount as String: 42]) == errSecParam)
        #expect(add(app, [kSecValueData as String: "not data"]) == errSecParam)
        #expect(add(app, [kSecAttrAccessible as String: "sometimes"]) == errSecParam)
        #expect(add(app, [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) == errSecParam)
        #expect(add(app, [kSecClass as String: "nonsense"]) == errSecParam)
        #expect(add(app, [kSecAttrServer as String: "example.com"]) == errSecNoSuchAttr)
        #expect(copy(app, Self.base.merging([kSecMatchLimit as String: "many"]) { $1 }).0 == errSecParam)
        #expect(copy(app, Self.base.merging([kSecValueData as String: Data()]) { $1 }).0 == errSecParam)
        #expect(copy(app, Self.base.merging([kSecReturnRef as String: true]) { $1 }).0 == errSecUnimplemented)
        #expect(try box.device.itemCount() == 0)

        #expect(add(app) == errSecSuccess)
        #expect(asProcess(app) { SecItemUpdate(Self.base as CFDictionary, [:] as CFDictionary) } == errSecParam)
        #expect(asProcess(app) { SecItemUpdate(Self.base as CFDictionary, [kSecClass as String: kSecClassInternetPassword] as CFDictionary) } == errSecParam)
        #expect(asProcess(app) { SecItemDelete(Self.base.merging([kSecMatchLimit as String: kSecMatchLimitAll]) { $1 } as CFDictionary) } == errSecParam)
        #expect(try box.device.itemCount() == 1)
    }

    @Test func addReadUpdateDeleteStatuses() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(copy(app, Self.base).0 == errSecItemNotFound)
        #expect(asProcess(app) { SecItemUpdate(Self.base as CFDictionary, [kSecValueData as String: Data()] as CFDictionary) } == errSecItemNotFound)
        #expect(asProcess(app) { SecItemDelete(Self.base as CFDictionary) } == errSecItemNotFound)
        #expect(add(app) == errSecSuccess)
        #expect(add(app, [kSecValueData as String: Data("other".utf8)]) == errSecDuplicateItem)
        // Accessibility is not part of the primary key: a different class is still a duplicate.
        #expect(add(app, [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) == errSecDuplicateItem)
        // ...but a query naming one matches only items of that class.
        #expect(asProcess(app) { SecItemDelete(Self.base.merging([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) { $1 } as CFDictionary) } == errSecItemNotFound)
        // The same service and account as a synchronizable item is another item.
        #expect(add(app, [kSecAttrSynchronizable as String: true]) == errSecSuccess)
        #expect(try box.device.itemCount() == 2)

        // No return keys: success, no result.
        let (status, nothing) = copy(app, Self.base)
        #expect(status == errSecSuccess && nothing == nil)

        // An update that would make two items one is a duplicate, and changes nothing.
        try app.add(Data("2".utf8), for: GenericPassword(service: "svc", account: "acct2"))
        #expect(asProcess(app) { SecItemUpdate([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct2"] as CFDictionary,
                                               [kSecAttrAccount as String: "acct"] as CFDictionary) } == errSecDuplicateItem)
        #expect(try app.read(GenericPassword(service: "svc", account: "acct2")) == Data("2".utf8))

        // Delete removes everything it matches (here both non-synchronizable items of the service).
        #expect(try app.delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]) == 2)
        #expect(try box.device.itemCount() == 1)
    }

    @Test func updateChangesAttributesAccessibilityAndSyncWithinTheRules() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(add(app, [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) == errSecSuccess)
        // Sync together with a ThisDeviceOnly class is refused, and the item is unchanged.
        #expect(asProcess(app) { SecItemUpdate(Self.base as CFDictionary, [kSecAttrSynchronizable as String: true] as CFDictionary) } == errSecParam)
        // Changing the class first makes sync possible.
        let change: [String: Any] = [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock, kSecAttrLabel as String: "Session",
                                     kSecValueData as String: Data("rotated".utf8)]
        #expect(asProcess(app) { SecItemUpdate(Self.base as CFDictionary, change as CFDictionary) } == errSecSuccess)
        #expect(asProcess(app) { SecItemUpdate(Self.base as CFDictionary, [kSecAttrSynchronizable as String: true] as CFDictionary) } == errSecSuccess)
        // Now synchronizable: found only by sync-aware queries, with the new attributes.
        #expect(copy(app, Self.base).0 == errSecItemNotFound)
        let found = copy(app, Self.base.merging([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                                                 kSecReturnAttributes as String: true, kSecReturnData as String: true]) { $1 })
        let attributes = try #require(found.1 as? [String: Any])
        #expect(attributes[kSecAttrLabel as String] as? String == "Session")
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock)
        #expect(attributes[kSecAttrSynchronizable as String] as? Bool == true)
        #expect(attributes[kSecValueData as String] as? Data == Data("rotated".utf8))
        // Typed move keeps the value and leaves no original behind.
        let key = GenericPassword(service: "svc", account: "acct", synchronizable: true)
        try app.move(key, toAccessGroup: Targets.suite, accessibility: .afterFirstUnlock)
        #expect(try box.keychain(Targets.share).read(GenericPassword(service: "svc", account: "acct", accessGroup: Targets.suite, synchronizable: true)) == Data("rotated".utf8))
        #expect(try box.device.itemCount() == 1)
    }

    @Test func resultShapesAndDefaults() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        for n in 1...3 { try app.add(Data("v\(n)".utf8), for: GenericPassword(service: "multi", account: "a\(n)")) }
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "multi"]

        // kSecMatchLimit defaults to one.
        let one = copy(app, query.merging([kSecReturnData as String: true]) { $1 })
        #expect(one.0 == errSecSuccess && one.1 as? Data == Data("v1".utf8))
        let all = copy(app, query.merging([kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) { $1 })
        #expect(all.1 as? [Data] == [Data("v1".utf8), Data("v2".utf8), Data("v3".utf8)])
        let two = copy(app, query.merging([kSecReturnAttributes as String: true, kSecMatchLimit as String: 2]) { $1 })
        #expect((two.1 as? [[String: Any]])?.count == 2)

        let both = copy(app, query.merging([kSecReturnAttributes as String: true, kSecReturnData as String: true]) { $1 })
        let attributes = try #require(both.1 as? [String: Any])
        #expect(attributes[kSecValueData as String] as? Data == Data("v1".utf8))
        #expect(attributes[kSecAttrAccount as String] as? String == "a1")
        #expect(attributes[kSecAttrAccessGroup as String] as? String == Targets.vault)
        // Apple's default accessibility: WhenUnlocked. Sync defaults to false.
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked)
        #expect(attributes[kSecAttrSynchronizable as String] as? Bool == false)
        #expect(attributes[kSecAttrCreationDate as String] is Date)

        // SecItemAdd can hand back what it stored.
        var added: CFTypeRef?
        let insert: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "x",
                                     kSecValueData as String: Data("new".utf8), kSecReturnData as String: true]
        #expect(asProcess(app) { SecItemAdd(insert as CFDictionary, &added) } == errSecSuccess)
        #expect(added as? Data == Data("new".utf8))
    }

    @Test func internetPasswordsUseTheirOwnPrimaryKey() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        let https = InternetPassword(server: "api.example.com", account: "alice", protocol: kSecAttrProtocolHTTPS, port: 443)
        try app.add(Data("pw".utf8), for: https)
        #expect(throws: SharedKeychain.KeychainError.self) { try app.add(Data("pw".utf8), for: https) }
        var http = https
        http.protocol = kSecAttrProtocolHTTP
        http.port = 80
        try app.add(Data("pw80".utf8), for: http)
        #expect(try app.read(http) == Data("pw80".utf8))
        #expect(try app.read(InternetPassword(server: "api.example.com", account: "alice", port: 443)) == Data("pw".utf8))
        let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrService as String: "svc"]
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, nil) } == errSecNoSuchAttr)
    }

    @Test func deprecatedAlwaysIsFlaggedOrRefused() throws {
        let box = try Sandbox()
        defer { box.remove() }
        #expect(add(box.keychain(Targets.app), [kSecAttrAccessible as String: Accessibility.always.rawValue]) == errSecSuccess)
        let strict = Keychain.Behavior(refusesDeprecatedAccessibility: true)
        #expect(add(box.keychain(Targets.share, strict), [kSecAttrAccessible as String: Accessibility.alwaysThisDeviceOnly.rawValue,
                                                          kSecAttrAccount as String: "other"]) == errSecParam)
        #expect(try box.device.itemCount() == 1)
    }

    @Test func errorMessagesMatchApple() {
        #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) == "The specified item could not be found in the keychain.")
        #expect(SecCopyErrorMessageString(errSecMissingEntitlement, nil) == "A required entitlement isn't present.")
        #expect(errSecDuplicateItem == -25299 && errSecItemNotFound == -25300 && errSecMissingEntitlement == -34018
                && errSecInteractionNotAllowed == -25308 && errSecParam == -50)
    }

    @Test func corruptKeychainIsReportedAndLeftUntouched() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try app.add(Data("v".utf8), for: GenericPassword(service: "s", account: "a"))
        let junk = Data("not a property list".utf8)
        let file = box.device.itemsURL(forAccessGroup: app.defaultAccessGroup)
        try junk.write(to: file)
        #expect(add(app) == errSecInvalidKeychain)
        #expect(copy(app, Self.base).0 == errSecInvalidKeychain)
        #expect(try Data(contentsOf: file) == junk)
    }

    @Test func missingIdentityIsNotAvailable() throws {
        // No bound keychain and (in the test process) no identity in the environment.
        guard ProcessInfo.processInfo.environment[Entitlements.EnvironmentKey.applicationIdentifier] == nil else { return }
        #expect(SecItemCopyMatching(Self.base as CFDictionary, nil) == errSecNotAvailable)
    }
}

#endif
