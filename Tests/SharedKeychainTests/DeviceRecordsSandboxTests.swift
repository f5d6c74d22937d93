#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport

/// The device's own records (its lock state, its biometric sensor) against a
/// sandboxed target that writes them directly, as a hostile target would: the
/// kernel refuses the write, what the target wrote elsewhere is never read, and a
/// prompt the target shows is run by the device.
@Suite(.tags(.hostile, .multiprocess), .simulatedDevices, .requiresSandbox(.fail))
struct DeviceRecordsSandboxTests {
    static let environment = [KeychainDevice.environmentKey: "phone"]

    static func vault() throws -> SimulatedTarget {
        try SimulatedTarget(name: "Vault", kind: .app, teamIdentifier: Targets.team, bundleIdentifier: "com.example.reader",
                            applicationGroups: [Targets.suite], keychainAccessGroups: [Targets.vault])
    }

    static func probe(_ device: SimulatedDevice, _ arguments: [String], as target: SimulatedTarget) async throws -> ProcessOutcome {
        try await device.run(built: "KeychainProbe", arguments, as: target, environment: environment, timeout: 120)
    }

    @Test func aTargetCannotUnlockTheDeviceByRewritingItsState() async throws {
        try await SimulatedDevice.with { device in
            let keychain = try KeychainDevice(root: device.root, name: "phone")
            let app = try Self.vault()
            let add = try await Self.probe(device, ["add", "--service", "s", "--account", "a", "--value", "secret", "--accessible", "ak"], as: app)
            #expect(add.outputLines == ["status=0"], "\(add)")
            try keychain.lock()

            let tamper = try await Self.probe(device, ["tamper-state"], as: app)
            #expect(tamper.outputLines.first?.hasPrefix("refused phone.device-state.plist in Devices") == true,
                    "the kernel refuses the write of the device's record: \(tamper)")
            #expect(try keychain.state().isLocked, "the device is still locked, as the test process reads it")
            let read = try await Self.probe(device, ["read", "--service", "s", "--account", "a", "--expect", "secret"], as: app)
            #expect(read.outputLines == ["status=-25308"], "the target still sees a locked device, whatever it wrote in Keychains/: \(read)")

            // Through the library: refused before any file is touched, with what to do.
            let unlock = try await Self.probe(device, ["device", "unlock"], as: app)
            #expect(unlock.status != 0 && unlock.standardError.contains("the device's own records"), "\(unlock)")
            #expect(try keychain.state().isLocked)
        }
    }

    @Test func aTargetCannotScriptItsOwnBiometricMatch() async throws {
        try await SimulatedDevice.with { device in
            let keychain = try KeychainDevice(root: device.root, name: "phone")
            let app = try Self.vault()
            let tamper = try await Self.probe(device, ["tamper-biometry"], as: app)
            #expect(tamper.outputLines.first?.hasPrefix("refused phone.biometry.plist in Devices") == true, "\(tamper)")
            #expect(try keychain.biometry().scriptedOutcomes.isEmpty, "nothing the target wrote is in the sensor")
            let evaluate = try await Self.probe(device, ["evaluate", "--policy", "biometrics"], as: app)
            #expect(evaluate.outputLines == ["error=-4"], "the prompt had nothing scripted (a system cancel), not the target's match: \(evaluate)")

            let script = try await Self.probe(device, ["biometry", "script", "match"], as: app)
            #expect(script.status != 0 && script.standardError.contains("the device's own records"), "\(script)")
            #expect(try keychain.biometry().scriptedOutcomes.isEmpty)
        }
    }

    @Test func aTargetsPromptIsRunByTheDevice() async throws {
        try await SimulatedDevice.with { device in
            let keychain = try KeychainDevice(root: device.root, name: "phone")
            let app = try Self.vault()
            try keychain.scriptBiometry([.match, .noMatch])
            let first = try await Self.probe(device, ["evaluate", "--policy", "biometrics", "--reason", "Unlock the vault"], as: app)
            #expect(first.outputLines == ["success"], "\(first)")
            let second = try await Self.probe(device, ["evaluate", "--policy", "biometrics"], as: app)
            #expect(second.outputLines == ["error=-1"], "the next scripted outcome, a failed match: \(second)")
            let sensor = try keychain.biometry()
            #expect(sensor.scriptedOutcomes.isEmpty)
            #expect(sensor.presentedPrompts.map(\.reason) == ["Unlock the vault", "Probe evaluation"])
            #expect(sensor.failedMatches == 1, "the device counted the failed match")

            // A protected item: saved, then read behind a prompt the device runs.
            try keychain.scriptBiometry([.match])
            let save = try await Self.probe(device, ["seed-save", "--account", "alice", "--secret", "s1"], as: app)
            #expect(save.outputLines == ["saved"], "\(save)")
            let read = try await Self.probe(device, ["seed-read", "--account", "alice", "--expect", "s1"], as: app)
            #expect(read.outputLines == ["match"], "\(read)")
            #expect(try keychain.biometry().scriptedOutcomes.isEmpty)
        }
    }
}
#endif
