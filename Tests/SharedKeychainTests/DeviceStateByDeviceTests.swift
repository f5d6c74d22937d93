#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedKeychain
import Testing
import TestSupport

/// The keychain answers from the device's one state, changed through
/// SimulatedDevice: a sandboxed target reads each accessibility class in each
/// state as iOS answers, and cannot change the state by writing its record.
@Suite(.tags(.multiprocess), .simulatedDevices, .requiresSandbox(.fail))
struct DeviceStateByDeviceTests {
    static func vault() throws -> SimulatedTarget {
        try SimulatedTarget(name: "Vault", kind: .app, teamIdentifier: Targets.team, bundleIdentifier: "com.example.reader",
                            applicationGroups: [Targets.suite], keychainAccessGroups: [Targets.vault])
    }

    static func probe(_ device: SimulatedDevice, _ arguments: [String], as target: SimulatedTarget) async throws -> ProcessOutcome {
        try await device.run(built: "KeychainProbe", arguments, as: target, timeout: 120)
    }

    /// What a read of each class answers: `status=0` or the OSStatus.
    static func statuses(_ device: SimulatedDevice, as app: SimulatedTarget) async throws -> [String: String] {
        var answers: [String: String] = [:]
        for (account, _) in classes {
            let read = try await probe(device, ["read", "--service", "s", "--account", account, "--expect", account], as: app)
            answers[account] = read.outputLines.first.map { $0.hasPrefix("status=0") ? "status=0" : $0 } ?? "\(read)"
        }
        return answers
    }

    static let classes = [("ak", "ak"), ("ck", "ck"), ("aku", "aku"), ("cku", "cku"), ("akpu", "akpu"), ("dk", "dk")]

    @Test func eachAccessibilityClassAnswersAsIOSInEachState() async throws {
        try await SimulatedDevice.with { device in
            let app = try Self.vault()
            for (account, accessible) in Self.classes {
                let add = try await Self.probe(device, ["add", "--service", "s", "--account", account, "--value", account, "--accessible", accessible], as: app)
                #expect(add.outputLines == ["status=0"], "\(add)")
            }
            let open = Dictionary(uniqueKeysWithValues: Self.classes.map { ($0.0, "status=0") })
            #expect(try await Self.statuses(device, as: app) == open)

            // Locked after a first unlock: the WhenUnlocked classes close, AfterFirstUnlock stays.
            try await device.lock()
            #expect(try await Self.statuses(device, as: app) == ["ak": "status=-25308", "aku": "status=-25308", "akpu": "status=-25308",
                                                                "ck": "status=0", "cku": "status=0", "dk": "status=0"])
            // Before the first unlock after a restart: only Always stays open.
            try await device.reboot()
            #expect(try await Self.statuses(device, as: app) == ["ak": "status=-25308", "aku": "status=-25308", "akpu": "status=-25308",
                                                                "ck": "status=-25308", "cku": "status=-25308", "dk": "status=0"])
            try await device.unlock()
            #expect(try await Self.statuses(device, as: app) == open)
        }
    }

    @Test(.tags(.hostile)) func aTargetCannotUnlockTheDeviceItRunsOn() async throws {
        try await SimulatedDevice.with { device in
            let app = try Self.vault()
            try await device.reboot()
            let tamper = try await Self.probe(device, ["tamper-state"], as: app)
            #expect(tamper.outputLines.first?.hasPrefix("refused default.device-state.plist in Devices") == true,
                    "the kernel refuses the write of the device's record: \(tamper)")
            let unlock = try await Self.probe(device, ["device", "unlock"], as: app)
            #expect(unlock.status != 0 && unlock.standardError.contains("the device's own records"), "\(unlock)")
            #expect(try device.state.condition == .beforeFirstUnlock, "still before first unlock, as every process reads it")
        }
    }
}
#endif
