#if !canImport(Darwin)
import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport
import Security
import LocalAuthentication

/// Part 5 (and the sharing of part 3) of issue 13: the keychain guide's sections 13
/// and 14 (saveBiometricProtectedSecret, readProtectedSecret), compiled with only their
/// import lines changed (Tests/Probes/KeychainProbe/ProtectedSeedCode.swift), run in a
/// KeychainProbe process while this process scripts the shared sensor, and the other
/// way round.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ProtectedSeedExampleTests {
    let box: Sandbox
    init() throws { box = try Sandbox() }

    func probe(_ arguments: [String]) throws -> String {
        let result = try Probe.run(arguments, box.environment(Targets.app))
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    func save(_ account: String, _ secret: String) throws -> String { try probe(["seed-save", "--account", account, "--secret", secret]) }
    func read(_ account: String, expect secret: String) throws -> String { try probe(["seed-read", "--account", account, "--expect", secret]) }

    @Test func successCancelAndFailedMatch() throws {
        defer { box.remove() }
        #expect(try save("alice", "card-1234") == "saved")
        try box.device.scriptBiometry([.match, .cancel, .noMatch, .systemCancel])
        #expect(try read("alice", expect: "card-1234") == "match")
        #expect(try read("alice", expect: "card-1234") == "threw unexpectedStatus(-128)")
        #expect(try read("alice", expect: "card-1234") == "threw unexpectedStatus(-25293)")
        #expect(try read("alice", expect: "card-1234") == "threw unexpectedStatus(-128)")
        // The probe consumed the prompts this process scripted, with the guide's reason.
        let sensor = try box.device.biometry()
        #expect(sensor.scriptedOutcomes.isEmpty)
        #expect(sensor.failedMatches == 1)
        #expect(sensor.presentedPrompts.allSatisfy { $0.reason == "Authenticate to access your saved information" && $0.kind == .biometry })
    }

    @Test func lockoutAfterFiveFailedMatches() throws {
        defer { box.remove() }
        #expect(try save("alice", "s") == "saved")
        try box.device.scriptBiometry(Array(repeating: .noMatch, count: 5) + [.match])
        for _ in 0..<5 { #expect(try read("alice", expect: "s") == "threw unexpectedStatus(-25293)") }
        #expect(try box.device.biometry().isLockedOut)
        #expect(try read("alice", expect: "s") == "threw unexpectedStatus(-25293)")
        #expect(try box.device.biometry().scriptedOutcomes == [.match])   // locked out: no prompt shown
        // A passcode evaluation (here in another probe) ends the lockout.
        #expect(try probe(["evaluate", "--policy", "owner"]) == "success")
        #expect(try !box.device.biometry().isLockedOut)
        try box.device.scriptBiometry([.match])
        #expect(try read("alice", expect: "s") == "match")
    }

    @Test func notEnrolledAndReEnrolled() throws {
        defer { box.remove() }
        try box.device.removeBiometryEnrollment()
        #expect(try save("alice", "s") == "threw unexpectedStatus(-25293)")
        try box.device.enrollBiometry()
        #expect(try save("alice", "s") == "saved")
        try box.device.scriptBiometry([.match])
        #expect(try read("alice", expect: "s") == "match")
        // A new face: the .biometryCurrentSet item is gone for the guide's read.
        try box.device.enrollBiometry()
        try box.device.scriptBiometry([.match])
        #expect(try read("alice", expect: "s") == "threw unexpectedStatus(-25300)")
        #expect(try box.device.biometry().scriptedOutcomes == [.match])
        // Its save again meets the invalidated item (delete it first, as apps must).
        #expect(try save("alice", "t") == "threw unexpectedStatus(-25299)")
    }

    @Test func aProbeScriptsTheSensorAndThisProcessConsumes() throws {
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "bob", .biometryCurrentSet, value: "b") == errSecSuccess)
        #expect(try probe(["biometry", "script", "cancel", "match"]).contains("scripted=cancel,match"))
        #expect(Protected.read(app, "bob").status == errSecUserCanceled)
        #expect(Protected.read(app, "bob").value == "b")
        let line = try probe(["biometry", "enroll"])
        #expect(line.contains("generation=2") && line.contains("prompts=2"))
        #expect(Protected.read(app, "bob").status == errSecItemNotFound)
        #expect(try probe(["biometry", "kind", "none"]).hasPrefix("kind=none"))
        #expect(try probe(["evaluate", "--policy", "biometrics"]) == "error=\(LAError.biometryNotAvailable.rawValue)")
        #expect(try Probe.run(["biometry", "script", "maybe"], box.environment(Targets.app)).status != 0)
    }

    @Test func promptsFromTwoProcessesEachTakeOneOutcome() throws {
        defer { box.remove() }
        #expect(try save("alice", "s") == "saved")
        try box.device.scriptBiometry([.match, .match, .match, .match])
        let readers = try (0..<4).map { _ in
            try Probe.start(["seed-read", "--account", "alice", "--expect", "s"], environment: box.environment(Targets.app))
        }
        for reader in readers { #expect(ProbeResult(reader.wait(timeout: 120)).stdout == "match") }
        let sensor = try box.device.biometry()
        #expect(sensor.scriptedOutcomes.isEmpty && sensor.presentedPrompts.count == 4)
    }
}
#endif
