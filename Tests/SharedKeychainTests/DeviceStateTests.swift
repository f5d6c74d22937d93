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

/// Accessibility classes against the simulated device state, the state changed by
/// one process and obeyed by others.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct DeviceStateTests {
    func store(_ keychain: Keychain, _ account: String, _ accessibility: Accessibility) throws {
        try keychain.add(Data(account.utf8), for: GenericPassword(service: "svc", account: account, accessGroup: Targets.vault),
                         accessibility: accessibility)
    }

    func probeRead(_ box: Sandbox, _ account: String, as identity: Entitlements = Targets.share) throws -> String {
        try Probe.run(["read", "--service", "svc", "--account", account, "--group", Targets.vault, "--expect", account],
                      box.environment(identity)).stdout
    }

    @Test func lockStateSetByOneProcessIsObeyedByAnother() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try store(app, "when-unlocked", .whenUnlocked)
        try store(app, "after-first-unlock", .afterFirstUnlock)
        try store(app, "passcode", .whenPasscodeSetThisDeviceOnly)

        // Another process locks the device.
        #expect(try Probe.run(["device", "lock"], box.environment(Targets.app)).stdout == "state=locked (unlocked since boot)")
        #expect(try probeRead(box, "when-unlocked") == "status=-25308")
        #expect(try probeRead(box, "passcode") == "status=-25308")
        #expect(try probeRead(box, "after-first-unlock") == "status=0 match")
        // This process sees it too, in the typed layer with the reason.
        do {
            _ = try app.read(GenericPassword(service: "svc", account: "when-unlocked"))
            Issue.record("a WhenUnlocked item was readable on a locked device")
        } catch let error as SharedKeychain.KeychainError {
            #expect(error.status == errSecInteractionNotAllowed)
            #expect(error.description.contains("kSecAttrAccessibleWhenUnlocked"))
        }
        // Adding a WhenUnlocked item while locked fails too; AfterFirstUnlock works.
        #expect(throws: SharedKeychain.KeychainError.self) { try store(app, "new", .whenUnlocked) }
        try store(app, "background", .afterFirstUnlockThisDeviceOnly)

        // A reboot closes AfterFirstUnlock items until the first unlock.
        #expect(try Probe.run(["device", "reboot"], box.environment(Targets.app)).stdout == "state=locked, not unlocked since boot")
        #expect(try probeRead(box, "after-first-unlock") == "status=-25308")
        try box.device.unlock()
        for account in ["when-unlocked", "after-first-unlock", "passcode"] {
            #expect(try probeRead(box, account) == "status=0 match")
        }
    }

    @Test func passcodeRulesForWhenPasscodeSet() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try store(app, "passcode", .whenPasscodeSetThisDeviceOnly)
        try store(app, "plain", .whenUnlocked)

        // Another process removes the passcode: WhenPasscodeSet items are deleted, others stay.
        #expect(try Probe.run(["device", "passcode-off"], box.environment(Targets.app)).stdout.hasPrefix("state=no passcode"))
        #expect(try probeRead(box, "passcode") == "status=-25300")
        #expect(try box.device.itemCount() == 1)
        // Without a passcode nothing can be stored in that class, and nothing is.
        #expect(throws: SharedKeychain.KeychainError.self) { try store(app, "passcode", .whenPasscodeSetThisDeviceOnly) }
        #expect(try box.device.itemCount() == 1)
        // A device without a passcode is always unlocked for data protection.
        try box.device.lock()
        #expect(try probeRead(box, "plain") == "status=0 match")
        try box.device.setPasscode(true)
        #expect(try probeRead(box, "plain") == "status=-25308")
    }

    @Test func stateSurvivesAndDefaultsToAnUnlockedDeviceWithPasscode() throws {
        let box = try Sandbox()
        defer { box.remove() }
        #expect(try box.device.state() == .unlocked)
        try box.device.reboot()
        let again = try KeychainDevice(root: box.root, name: box.device.name)
        #expect(try again.state() == DeviceState(isLocked: true, hasBeenUnlockedSinceBoot: false, isPasscodeSet: true))
        // Another device on the same root is independent.
        #expect(try KeychainDevice(root: box.root, name: "tablet").state() == .unlocked)
        #expect(throws: SharedKeychain.KeychainError.self) { try KeychainDevice(root: box.root, name: "../escape") }
    }
}

#endif
