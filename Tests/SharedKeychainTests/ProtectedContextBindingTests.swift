#if !canImport(Darwin)
import AppGroupTesting
import AppGroupContainer
import Foundation
import PropertyLists
@testable import SharedKeychain
import Testing
import TestSupport
import Security
import LocalAuthentication

/// What an `LAContext` proved belongs to the device that proved it, and lasts only
/// as long as the state it was proved in (issue 23, B14): another simulated device
/// prompts on its own sensor; a lockout, an enrolment change, the passcode's
/// removal, a device lock and an erase each end what the context proved.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ProtectedContextBindingTests {
    /// A second simulated device under the same root as `box`'s.
    static func tablet(_ box: Sandbox) throws -> KeychainDevice { try KeychainDevice(root: box.root, name: "tablet") }

    static func use(_ context: LAContext) -> [String: Any] { [kSecUseAuthenticationContext as String: context] }

    @Test("a context evaluated on one device opens another device's protected item only after a prompt on that device")
    func aContextIsBoundToItsDevice() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let phone = box.keychain(Targets.app)
        let tablet = Keychain(device: try Self.tablet(box), identity: Targets.app)
        for keychain in [phone, tablet] {
            #expect(Protected.add(keychain, "any", .biometryAny, value: keychain.device.name) == errSecSuccess)
            #expect(Protected.add(keychain, "current", .biometryCurrentSet, value: keychain.device.name) == errSecSuccess)
            #expect(Protected.add(keychain, "presence", .userPresence, value: keychain.device.name) == errSecSuccess)
        }
        let context = LAContext(simulatedDevice: box.device)
        try box.device.scriptBiometry([.match])
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock"))
        #expect(Protected.read(phone, "any", Self.use(context)).value == "phone")
        #expect(try Protected.prompts(box.device) == 1)

        // Both devices are at enrolment 1 with the same state: only the device tells them apart.
        try tablet.device.scriptBiometry([.cancel, .cancel, .cancel])
        for account in ["any", "current", "presence"] {
            #expect(Protected.read(tablet, account, Self.use(context)).status == errSecUserCanceled, "\(account) on the tablet")
        }
        #expect(try Protected.prompts(tablet.device) == 3, "each read prompted on the tablet's own sensor")
        try tablet.device.scriptBiometry([.match])
        #expect(Protected.read(tablet, "any", Self.use(context)).value == "tablet")
        #expect(Protected.read(tablet, "current", Self.use(context)).value == "tablet")
        #expect(try Protected.prompts(tablet.device) == 4)
        // The context now holds the tablet's authentication: the phone asks again.
        try box.device.scriptBiometry([.cancel])
        #expect(Protected.read(phone, "any", Self.use(context)).status == errSecUserCanceled)
        #expect(try Protected.prompts(box.device) == 2)
    }

    @Test("an LAContext() evaluated in one keychain's scope does not reuse that evaluation in another device's scope, not even within its reuse duration")
    func theReuseDurationStaysOnItsDevice() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let phone = box.keychain(Targets.app)
        let tablet = Keychain(device: try Self.tablet(box), identity: Targets.app)
        let context = LAContext()
        context.touchIDAuthenticationAllowableReuseDuration = 300
        try box.device.scriptBiometry([.match])
        try await Keychain.withCurrent(phone) { () async throws -> Void in
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        }
        #expect(try Protected.prompts(box.device) == 1, "reused on the phone within the duration")
        try tablet.device.scriptBiometry([.cancel])
        await Keychain.withCurrent(tablet) { () async -> Void in
            await #expect(throws: LAError.self) { try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r") }
        }
        #expect(try Protected.prompts(tablet.device) == 1, "the tablet prompted")
    }

    @Test("a biometric lockout (five failed matches in other processes) ends what a context proved with biometry; the passcode that ends the lockout does not bring it back")
    func aLockoutEndsTheContextsBiometry() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "face", .biometryAny, value: "f") == errSecSuccess)
        let context = LAContext(simulatedDevice: box.device)
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "face", Self.use(context)).value == "f")
        #expect(Protected.read(app, "face", Self.use(context)).value == "f")
        #expect(try Protected.prompts(box.device) == 1)

        // Another app process on the device fails five matches: biometry locks out.
        try box.device.scriptBiometry(Array(repeating: .noMatch, count: 5))
        for _ in 0..<5 {
            let result = try Probe.run(["evaluate", "--policy", "biometrics"], box.environment(Targets.app))
            #expect(result.stdout == "error=\(LAError.authenticationFailed.rawValue)", "\(result.stdout) \(result.stderr)")
        }
        #expect(try box.device.biometry().isLockedOut)
        #expect(Protected.read(app, "face", Self.use(context)).status == errSecAuthFailed)
        #expect(try Protected.prompts(box.device) == 6, "locked out: no scan shown, and the earlier match not reused")
        // Its own evaluatePolicy reuse is over too.
        context.touchIDAuthenticationAllowableReuseDuration = 300
        await #expect(throws: LAError.self) { try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r") }

        // A passcode entry in another process ends the lockout; the old match stays spent.
        try box.device.scriptBiometry([.match])
        #expect(try Probe.run(["evaluate", "--policy", "owner"], box.environment(Targets.app)).stdout == "success")
        #expect(try !box.device.biometry().isLockedOut)
        try box.device.scriptBiometry([.cancel])
        #expect(Protected.read(app, "face", Self.use(context)).status == errSecUserCanceled)
        #expect(try Protected.prompts(box.device) == 8)
    }

    @Test("resetBiometry() after a lockout does not bring back what a context proved before it")
    func aResetKeepsTheLockoutsCount() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "face", .biometryAny, value: "f") == errSecSuccess)
        let context = LAContext(simulatedDevice: box.device)
        try box.device.scriptBiometry([.match] + Array(repeating: .noMatch, count: 5))
        #expect(Protected.read(app, "face", Self.use(context)).value == "f")
        for _ in 0..<5 { #expect(Protected.read(app, "face").status == errSecAuthFailed) }
        #expect(try box.device.biometry().isLockedOut)
        try box.device.resetBiometry()
        try box.device.scriptBiometry([.cancel])
        #expect(Protected.read(app, "face", Self.use(context)).status == errSecUserCanceled)
    }

    @Test("a state file and a sensor file written before the counters existed still load, as nothing counted yet")
    func filesOfEarlierVersionsLoad() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try FileManager.default.createDirectory(at: box.device.directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: box.device.recordsDirectory, withIntermediateDirectories: true)
        var state = PropertyListDictionary()
        state.set(.bool(true), forKey: "isLocked")
        state.set(.bool(true), forKey: "hasBeenUnlockedSinceBoot")
        state.set(.bool(true), forKey: "isPasscodeSet")
        try AtomicFile.write(PropertyListCodec.write(.dictionary(state), format: .binary), to: box.device.stateURL, below: .marked(above: box.device.stateURL))
        var sensor = PropertyListDictionary()
        sensor.set(.string("touchID"), forKey: "kind")
        sensor.set(.bool(true), forKey: "isEnrolled")
        sensor.set(.integer(.signed(3)), forKey: "enrollmentGeneration")
        sensor.set(.integer(.signed(0)), forKey: "failedMatches")
        sensor.set(.array([]), forKey: "scriptedOutcomes")
        sensor.set(.array([]), forKey: "presentedPrompts")
        try AtomicFile.write(PropertyListCodec.write(.dictionary(sensor), format: .binary), to: box.device.biometryURL, below: .marked(above: box.device.biometryURL))
        #expect(try box.device.state() == DeviceState(isLocked: true, hasBeenUnlockedSinceBoot: true, isPasscodeSet: true))
        #expect(try box.device.state().securityGeneration == 0)
        let read = try box.device.biometry()
        #expect(read.kind == .touchID && read.enrollmentGeneration == 3 && read.lockoutCount == 0 && read.incarnation == nil)
        try box.device.unlock()
        #expect(try box.device.state().securityGeneration == 0, "an unlock ends nothing")
        try box.device.lock()
        #expect(try box.device.state().securityGeneration == 1)
    }

    /// Adds a `.userPresence` item, proves a context on it (one scan), then runs
    /// `change`; returns the status of a read with that context afterwards and how
    /// many prompts the read showed (its one scripted answer is a cancel).
    func readAfter(_ change: (Sandbox, Keychain) throws -> Void) throws -> (status: OSStatus, prompts: Int) {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "presence", .userPresence, value: "p") == errSecSuccess)
        let context = LAContext(simulatedDevice: box.device)
        try box.device.scriptBiometry([.match])
        #expect(Protected.read(app, "presence", Self.use(context)).value == "p")
        #expect(Protected.read(app, "presence", Self.use(context)).value == "p")
        try change(box, app)
        let before = try Protected.prompts(box.device)
        try box.device.scriptBiometry([.cancel])
        let status = Protected.read(app, "presence", Self.use(context)).status
        return (status, try Protected.prompts(box.device) - before)
    }

    @Test("with nothing changed, the context is reused: no prompt")
    func nothingChanged() throws {
        let read = try readAfter { _, _ in }
        #expect(read.status == errSecSuccess && read.prompts == 0)
    }

    @Test("an enrolment change ends what the context proved: the next read prompts")
    func enrolmentChange() throws {
        let read = try readAfter { box, _ in try box.device.enrollBiometry() }
        #expect(read.status == errSecUserCanceled && read.prompts == 1)
    }

    @Test("removing the passcode (and setting one again) ends what the context proved: the next read prompts")
    func passcodeRemoval() throws {
        let read = try readAfter { box, _ in
            try box.device.setPasscode(false)
            try box.device.setPasscode(true)
        }
        #expect(read.status == errSecUserCanceled && read.prompts == 1)
    }

    @Test("locking the device (and unlocking it) ends what the context proved: the next read prompts")
    func deviceLock() throws {
        let read = try readAfter { box, _ in
            try box.device.lock()
            try box.device.unlock()
        }
        #expect(read.status == errSecUserCanceled && read.prompts == 1)
    }

    @Test("a restart ends what the context proved: the next read prompts")
    func reboot() throws {
        let read = try readAfter { box, _ in
            try box.device.reboot()
            try box.device.unlock()
        }
        #expect(read.status == errSecUserCanceled && read.prompts == 1)
    }

    @Test("erasing the device ends what the context proved on it: an item added afterwards prompts")
    func erase() throws {
        let read = try readAfter { box, app in
            try box.device.erase()
            #expect(Protected.add(app, "presence", .userPresence, value: "p") == errSecSuccess)
        }
        #expect(read.status == errSecUserCanceled && read.prompts == 1)
    }
}
#endif
