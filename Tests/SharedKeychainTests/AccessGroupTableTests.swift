// These tests call the emulator's SecItem functions; on Darwin those names are
// Apple's own, so the tests run where the Security framework is absent.
#if !canImport(Darwin)

import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport
import Security

/// The seeds' table of expected results, each target in its own process: the
/// KeychainProbe executable run with the target's identity in its environment.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct AccessGroupTableTests {
    @Test func teamIDGroupItemIsReadByAppShareExtensionAndWidget() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let published = try Probe.run(["publish-session-token", "--token", "tok-7f3a"], box.environment(Targets.app))
        #expect(published.stdout == "status=0", "\(published.stderr)")

        // Three readers, three processes, started together.
        let readers = try [Targets.app, Targets.share, Targets.widget].map {
            try Probe.start(["read-session-token", "--expect", "tok-7f3a"], environment: box.environment($0))
        }
        for (reader, name) in zip(readers.map { ProbeResult($0.wait(timeout: 120)) }, ["app", "share extension", "widget"]) {
            #expect(reader.stdout == "status=0 match", "\(name): \(reader.stderr)")
        }
    }

    @Test func appGroupItemWorksOnlyWithAnExplicitAccessGroup() throws {
        let box = try Sandbox()
        defer { box.remove() }
        // The app and extension share an App Group but no Keychain Sharing group.
        let app = box.environment(Targets.groupOnlyApp)
        let share = box.environment(Targets.groupOnlyShare)

        // Without a group the item goes to the default, the app's own identifier:
        // the app group is never the default, so the extension cannot see it.
        #expect(try Probe.run(["add", "--service", "svc", "--account", "implicit", "--value", "v1"], app).stdout == "status=0")
        #expect(try Probe.run(["read", "--service", "svc", "--account", "implicit"], share).stdout == "status=-25300")

        // Named explicitly, the app group carries the item to the extension.
        #expect(try Probe.run(["add", "--service", "svc", "--account", "explicit", "--value", "v2", "--group", Targets.suite], app).stdout == "status=0")
        #expect(try Probe.run(["read", "--service", "svc", "--account", "explicit", "--group", Targets.suite, "--expect", "v2"], share).stdout == "status=0 match")
        // A search without a group covers every group of the caller, app groups included.
        #expect(try Probe.run(["read", "--service", "svc", "--account", "explicit", "--expect", "v2"], share).stdout == "status=0 match")

        let attributes = try box.keychain(Targets.groupOnlyApp).copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "implicit",
            kSecReturnAttributes as String: true]) as? [String: Any]
        #expect(attributes?[kSecAttrAccessGroup as String] as? String == Targets.groupOnlyApp.applicationIdentifier)
    }

    @Test func extensionWithoutTheEntitlementGetsMinus34018() throws {
        let box = try Sandbox()
        defer { box.remove() }
        #expect(try Probe.run(["publish-session-token", "--token", "tok-secret-99"], box.environment(Targets.app)).stdout == "status=0")

        let denied = try Probe.run(["read-session-token", "--expect", "tok-secret-99"], box.environment(Targets.bareExtension))
        #expect(denied.stdout == "status=-34018")
        // Loud where Apple is quiet: the reason names the group, the target and the fix...
        #expect(denied.stderr.contains(Targets.vault))
        #expect(denied.stderr.contains("com.example.reader.notify"))
        #expect(denied.stderr.contains("Keychain Sharing"))
        // ...and never the secret.
        #expect(!denied.stderr.contains("tok-secret-99"))

        let legacy = try Probe.run(["read-session-token"], box.environment(Targets.bareExtension, behavior: "iOS12"))
        #expect(legacy.stdout == "status=-25300")
    }

    @Test func groupWithoutTeamIDPrefixFails() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let wrongGroup = ["PROBE_VAULT_GROUP": "com.example.vault"]
        let modern = try Probe.run(["publish-session-token", "--token", "t"], box.environment(Targets.app, extra: wrongGroup))
        #expect(modern.stdout == "status=-34018")
        #expect(modern.stderr.contains("lacks its Team ID prefix"))
        #expect(modern.stderr.contains("\"\(Targets.vault)\""))
        let legacy = try Probe.run(["publish-session-token", "--token", "t"], box.environment(Targets.app, behavior: "iOS12", extra: wrongGroup))
        #expect(legacy.stdout == "status=-25300")
        #expect(try box.device.itemCount() == 0)
    }

    @Test func accessGroupOrderAndDefault() throws {
        let box = try Sandbox()
        defer { box.remove() }
        #expect(box.keychain(Targets.app).accessGroups == [Targets.vault, Targets.app.applicationIdentifier, Targets.suite])
        #expect(box.keychain(Targets.app).defaultAccessGroup == Targets.vault)
        #expect(box.keychain(Targets.groupOnlyApp).defaultAccessGroup == Targets.groupOnlyApp.applicationIdentifier)
        // On macOS application groups are not keychain access groups.
        #expect(box.keychain(Targets.app, .macOS).accessGroups == [Targets.vault, Targets.app.applicationIdentifier])
    }

    @Test func macOSIgnoresTheAccessGroupOutsideTheDataProtectionKeychain() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let mac = box.keychain(Targets.bareExtension, .macOS)
        let unentitled = "A1B2C3D4E5.com.other.vault"
        var insert: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: SharedVault.service,
            kSecAttrAccount as String: "a", kSecAttrAccessGroup as String: unentitled, kSecValueData as String: Data("v".utf8),
        ]
        // File-based keychain: the group is ignored without an error.
        #expect(asProcess(mac) { SecItemAdd(insert as CFDictionary, nil) } == errSecSuccess)
        // The data protection keychain applies the rules.
        insert[kSecUseDataProtectionKeychain as String] = true
        #expect(asProcess(mac) { SecItemAdd(insert as CFDictionary, nil) } == errSecMissingEntitlement)
        insert[kSecAttrAccessGroup as String] = Targets.suite
        #expect(asProcess(mac) { SecItemAdd(insert as CFDictionary, nil) } == errSecMissingEntitlement)
        insert.removeValue(forKey: kSecUseDataProtectionKeychain as String)
        insert[kSecAttrSynchronizable as String] = true
        insert[kSecAttrAccessGroup as String] = unentitled
        #expect(asProcess(mac) { SecItemAdd(insert as CFDictionary, nil) } == errSecMissingEntitlement)

        // The two keychains are separate: an iOS-rules search does not see the file-based item.
        let search: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: SharedVault.service]
        #expect(asProcess(box.keychain(Targets.app)) { SecItemCopyMatching(search as CFDictionary, nil) } == errSecItemNotFound)
        #expect(asProcess(box.keychain(Targets.app, .macOS)) { SecItemCopyMatching(search as CFDictionary, nil) } == errSecSuccess)
    }
}

#endif
