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

/// Where and how items are stored, and that values never leak into text.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct StorageTests {
    @Test func oneFilePerAccessGroupAndDeviceBesideTheContainers() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let container = try ContainerResolver(root: box.root, entitlements: Targets.app)
            .requireContainerURL(forSecurityApplicationGroupIdentifier: Targets.suite)
        try box.keychain(Targets.app).add(Data("v".utf8), for: GenericPassword(service: "s", account: "a", accessGroup: Targets.suite))
        try box.keychain(Targets.app).add(Data("w".utf8), for: GenericPassword(service: "s", account: "a"))

        let file = box.device.itemsURL(forAccessGroup: Targets.suite)
        #expect(file.path == box.root.appendingPathComponent("Keychains/AccessGroups/group.com.example.suite/phone.keychain-db").path)
        #expect(box.device.itemsURL(forAccessGroup: Targets.vault).path
                == box.root.appendingPathComponent("Keychains/AccessGroups/A1B2C3D4E5.com.example.vault/phone.keychain-db").path)
        #expect(!file.path.hasPrefix(container.path))
        // "Keychains" can never be a group identifier, so it cannot collide with a container.
        #expect(GroupIdentifier(validating: KeychainDevice.directoryName) == nil)
        for url in [box.device.directory, box.device.accessGroupsDirectory, file.deletingLastPathComponent()] {
            #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int == 0o700, "\(url.path)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        #expect(try box.device.itemCount() == 2)
        // No temporary file is left behind by the atomic saves.
        for group in [Targets.suite, Targets.vault] {
            let names = try FileManager.default.contentsOfDirectory(atPath: box.device.directory(forAccessGroup: group).path)
            #expect(names == ["phone.keychain-db"], "\(group): \(names)")
        }

        // Erasing the device is what removes orphans.
        try box.device.erase()
        #expect(try box.device.itemCount() == 0)
    }

    @Test func valuesNeverAppearInDescriptionsOrErrors() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let secret = "sk_live_5ecret_value"
        let app = box.keychain(Targets.app)
        let key = GenericPassword(service: "api", account: "alice")
        try app.add(Data(secret.utf8), for: key, accessibility: .whenUnlocked)

        var texts: [String] = [String(describing: app), String(describing: key)]
        let content = try box.device.loadItems(box.device.presentParts())
        for item in content.items {
            texts.append(String(describing: item))
            texts.append(String(reflecting: item))
            var dumped = ""
            dump(item, to: &dumped)
            texts.append(dumped)
        }
        func capture(_ body: () throws -> Void) {
            do { try body() } catch { texts.append(String(describing: error)); texts.append(error.localizedDescription) }
        }
        capture { try app.add(Data(secret.utf8), for: key) }   // duplicate
        capture { try app.add([kSecClass as String: kSecClassGenericPassword, kSecValueData as String: secret]) }   // wrong type
        capture { try app.add([kSecClass as String: kSecClassGenericPassword, kSecAttrGeneric as String: Data(secret.utf8),
                               kSecAttrSynchronizable as String: true,
                               kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) }
        try box.device.lock()
        capture { _ = try app.read(key) }   // interaction not allowed
        capture { _ = try app.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrGeneric as String: Data(secret.utf8)]) }
        #expect(texts.count >= 8)
        for text in texts { #expect(!text.contains(secret), "leaked in: \(text)") }

        // Nor in what a process writes to standard error on failure.
        let failed = try Probe.run(["add", "--service", "api", "--account", "alice", "--value", secret, "--sync",
                                    "--accessible", kSecAttrAccessibleWhenUnlockedThisDeviceOnly], box.environment(Targets.app))
        #expect(failed.stdout == "status=-50")
        #expect(failed.stderr.contains("ThisDeviceOnly"))
        #expect(!failed.stderr.contains(secret))
    }

    @Test func environmentSelectsDeviceAndBehavior() throws {
        let box = try Sandbox()
        defer { box.remove() }
        var env = box.environment(Targets.share, behavior: "iOS12")
        env[KeychainDevice.environmentKey] = "tablet"
        let keychain = try Keychain.fromEnvironment(env)
        #expect(keychain.device.name == "tablet")
        #expect(keychain.device.root.path == box.root.standardizedFileURL.path)
        #expect(keychain.behavior == .iOS12)
        #expect(keychain.identity == Targets.share)
        env[Keychain.Behavior.environmentKey] = "android"
        #expect(throws: SharedKeychain.KeychainError.self) { try Keychain.fromEnvironment(env) }
    }

    @Test func aPasswordSharedForExtensionsIsReadableWhileLockedAndRefusedWithoutTheGroup() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        let share = box.keychain(Targets.share)
        let token = GenericPassword(service: "session", account: "active-user", accessGroup: Targets.vault)
        #expect(try share.readIfPresent(token) == nil)
        try app.save(Data("one".utf8), for: token, accessibility: .afterFirstUnlockThisDeviceOnly)
        try app.save(Data("two".utf8), for: token, accessibility: .afterFirstUnlockThisDeviceOnly)
        #expect(try share.readIfPresent(token) == Data("two".utf8))
        // Readable in the background while locked (AfterFirstUnlockThisDeviceOnly).
        try box.device.lock()
        #expect(try share.readIfPresent(token) == Data("two".utf8))
        // An extension without the entitlement gets the error, not a quiet nil.
        do {
            _ = try box.keychain(Targets.bareExtension).readIfPresent(token)
            Issue.record("an unentitled extension read the token")
        } catch let error as SharedKeychain.KeychainError {
            #expect(error.status == errSecMissingEntitlement)
        }
        do {
            _ = try box.keychain(Targets.bareExtension, .iOS12).readIfPresent(token)
            Issue.record("an unentitled extension read the token")
        } catch let error as SharedKeychain.KeychainError {
            #expect(error.status == errSecItemNotFound)
        }
    }
}

#endif
