import AppGroupTesting
import DeviceTestSupport
import Foundation
import SharedDefaults
import TestSupport
import Testing

/// The device's one state (power, lock, passcode, clock): changed by the test
/// through SimulatedDevice, read by every process of the device, told to the
/// targets as iOS tells apps (the protected-data notifications), followed by a
/// prewarmed launch.
@Suite(.tags(.multiprocess)) struct DeviceLockTests {
    /// The refusal a bad order gets, or nil.
    static func refusal(_ body: () throws -> Void) -> (operation: String, state: String)? {
        do { try body() } catch SimulationError.container(.deviceStateChangeRefused(let operation, let state, _)) {
            return (operation, state)
        } catch {
            Issue.record("expected a refused change, got \(error)")
        }
        return nil
    }

    @Test func lockUnlockAndRebootMoveTheOneStateAndRefuseOrdersIOSNeverMakes() throws {
        try SimulatedDevice.with(name: "DeviceLock") { device in
            #expect(try device.state == .unlocked, "a fresh device is unlocked, with a passcode")
            let refusedUnlock = Self.refusal { try device.unlock() }
            #expect(refusedUnlock?.operation == "unlock" && refusedUnlock?.state == "unlocked", "\(String(describing: refusedUnlock))")

            try device.lock()
            let locked = try device.state
            #expect(locked.condition.name == "locked" && locked.lockedSince != nil)
            #expect(Self.refusal { try device.lock() }?.state == "locked (unlocked since boot)")

            try device.reboot()
            #expect(try device.state.condition == .beforeFirstUnlock)
            #expect(try !device.state.hasBeenUnlockedSinceBoot)
            try device.unlock()
            #expect(try device.state.condition == .unlocked)

            // The clock widgets use is the same record's.
            let before = try device.clock()
            try device.advanceClock(by: 3600)
            #expect(try device.state.clockOffset == 3600)
            #expect(try device.clock().timeIntervalSince(before) >= 3600)
        }
    }

    @Test func aTargetIsToldWhenProtectedDataComesAndGoes() async throws {
        let fixture = try LifecycleFixture(name: "ProtectedData")
        defer { fixture.device.remove() }
        let device = fixture.device
        try device.setProtectedDataGrace(0)
        let app = try await fixture.probe(["protected-data"], as: fixture.notes.app)
        try await app.requireLine("available true at launch", timeout: 30)

        try await device.lock()
        // Told (grace 0) before lock() returned, inside the target's process.
        try await app.requireLine("notified UIApplicationProtectedDataWillBecomeUnavailable", timeout: 30)
        try await app.requireLine("available false after UIApplicationProtectedDataWillBecomeUnavailable", timeout: 30)

        try await device.unlock()
        try await app.requireLine("notified UIApplicationProtectedDataDidBecomeAvailable", timeout: 30)
        try await app.requireLine("available true after UIApplicationProtectedDataDidBecomeAvailable", timeout: 30)
        try await device.terminate(app)
    }

    @Test func theWillBecomeUnavailableNoticeWaitsForTheGrace() async throws {
        let fixture = try LifecycleFixture(name: "ProtectedGrace")
        defer { fixture.device.remove() }
        let device = fixture.device
        try device.setProtectedDataGrace(1)
        let app = try await fixture.probe(["protected-data"], as: fixture.notes.app)
        try await device.lock()
        let state = try device.state
        let since = try #require(state.lockedSince)
        #expect(state.isProtectedDataAvailable(at: since), "within the grace the data stays available")
        #expect(!state.isProtectedDataAvailable(at: since.addingTimeInterval(1)))
        try await app.requireLine("notified UIApplicationProtectedDataWillBecomeUnavailable", timeout: 60)
        try await app.requireLine("available false after UIApplicationProtectedDataWillBecomeUnavailable", timeout: 30)
        #expect(Self.refusal { try device.setProtectedDataGrace(-1) } != nil)
        try await device.terminate(app)
    }

    @Test(.tags(.killed)) func aRebootEndsRunningTargetsAndAPrewarmedAppStartsBeforeFirstUnlock() async throws {
        let fixture = try LifecycleFixture(name: "Prewarm")
        defer { fixture.device.remove() }
        let device = fixture.device
        let running = try await fixture.probe(["protected-data"], as: fixture.notes.app)
        try await running.requireLine("prewarm unset", timeout: 30)

        try await device.reboot()
        #expect(device.terminations.contains { $0.processIdentifier == running.processIdentifier && $0.reason == .deviceRestarted },
                "\(device.terminations)")
        #expect(try device.state.condition == .beforeFirstUnlock)

        let process = try device.launch(built: "LifecycleProbe", ["protected-data"], as: fixture.notes.app, prewarmed: true)
        try await process.requireLine("ready", timeout: 60)
        try await process.requireLine("prewarm 1", timeout: 30)
        try await process.requireLine("available false at launch", timeout: 30)
        try await device.unlock()
        try await process.requireLine("notified UIApplicationProtectedDataDidBecomeAvailable", timeout: 30)
        try await process.requireLine("available true after UIApplicationProtectedDataDidBecomeAvailable", timeout: 30)
        try await device.terminate(process)

        #expect(throws: SimulationError.self, "iOS prewarms apps only") {
            try device.launch(built: "LifecycleProbe", ["hello"], as: fixture.notes.widget, prewarmed: true)
        }
    }

    /// Runs the probe's "identity" app prewarmed after a reboot, over a suite that
    /// holds the real user's ID; returns what the suite holds after the unlock
    /// and what the app saved.
    static func prewarmedIdentity(waiting mode: String) async throws -> (stored: String?, saved: String, warned: Bool) {
        let fixture = try LifecycleFixture(name: "NewUser")
        defer { fixture.device.remove() }
        let device = fixture.device
        let suite = NotesExample.groupIdentifier
        try device.run(as: fixture.notes.app) { _ in try SharedDefaults(requiringSuiteName: suite).save("real-user", forKey: "userID") }
        try await device.reboot()
        let app = try device.launch(built: "LifecycleProbe", ["identity", "--suite", suite, "--wait-for-unlock", mode],
                                    as: fixture.notes.app, prewarmed: true)
        try await app.requireLine("ready", timeout: 60)
        if mode == "after-reading" { try await app.requireLine("read none", timeout: 30) }
        try await device.unlock()
        let line = try #require(await app.line(timeout: 30) { $0.hasPrefix("saved ") }, "\(app.outputLines)")
        let stored = try device.run(as: fixture.notes.app) { _ in try SharedDefaults(requiringSuiteName: suite).string(forKey: "userID") }
        let warned = await app.errorLine(timeout: 1) { $0.contains("before the first unlock") } != nil
        try await device.terminate(app)
        return (stored, String(line.dropFirst("saved ".count)), warned)
    }

    @Test(.tags(.killed)) func aPrewarmedAppThatReadsBeforeTheFirstUnlockOverwritesTheRealUser() async throws {
        let (stored, saved, warned) = try await Self.prewarmedIdentity(waiting: "after-reading")
        // The bug, reproduced: the suite read nothing, the app took a new user and saved it over the real one.
        #expect(saved.hasPrefix("new-") && stored == saved, "stored \(String(describing: stored)), saved \(saved)")
        #expect(warned, "the read before the first unlock is named on standard error, as iOS never does")
    }

    @Test(.tags(.killed)) func aPrewarmedAppThatWaitsForProtectedDataKeepsTheRealUser() async throws {
        let (stored, saved, _) = try await Self.prewarmedIdentity(waiting: "before-reading")
        #expect(saved == "real-user" && stored == "real-user", "stored \(String(describing: stored)), saved \(saved)")
    }

    @Test(.tags(.hostile)) func aPlantedRecordIsATypedErrorAndNeverAGuess() throws {
        try SimulatedDevice.with(name: "DeviceJunk") { device in
            try device.lock()
            let record = device.root.appendingPathComponent("Devices/default.device-state.plist")
            for junk in [Data("not a plist".utf8), Data(repeating: 0x41, count: 1_100_000),
                         try PropertyListSerialization.data(fromPropertyList: ["condition": "asleep", "isPasscodeSet": true], format: .binary, options: 0),
                         try PropertyListSerialization.data(fromPropertyList: ["condition": "unlocked", "isPasscodeSet": true, "clockOffset": Double.nan],
                                                            format: .binary, options: 0)] {
                try junk.write(to: record)
                #expect {
                    _ = try device.state
                } throws: { error in
                    guard case SimulationError.container(let inner) = error else { return false }
                    guard case .invalidDeviceState(let path, _) = inner else { return false }
                    return path == record.path
                }
                #expect(throws: (any Error).self, "no change is made on a record that cannot be read") { try device.unlock() }
            }
        }
    }
}
