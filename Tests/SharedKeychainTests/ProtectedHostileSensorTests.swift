#if !canImport(Darwin)
import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport
import Security
import LocalAuthentication

/// A sensor file planted or damaged by someone else: typed errors, never a crash.
@Suite(.tags(.hostile), .dedicatedThreads) struct ProtectedHostileSensorTests {
    @Test func aGarbageSensorFileIsInvalidKeychainAndIsKept() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryAny) == errSecSuccess)
        let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>kind</key><string>irisScanner</string></dict></plist>".utf8)
        try garbage.write(to: box.device.biometryURL)
        #expect(Protected.read(app, "alice").status == errSecInvalidKeychain)
        var error: NSError?
        #expect(!LAContext(simulatedDevice: box.device).canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(error?.code == LAError.biometryNotAvailable.rawValue)
        #expect(throws: SharedKeychain.KeychainError.self) { try box.device.scriptBiometry([.match]) }
        #expect(try Data(contentsOf: box.device.biometryURL) == garbage)
        // Erasing the device removes it with the rest.
        try box.device.erase()
        #expect(!FileManager.default.fileExists(atPath: box.device.biometryURL.path))
    }

    /// The sensor is read only for protected items: a damaged sensor file fails
    /// those (above) and nothing else, and a call on unprotected items never reads it.
    @Test func aDamagedSensorFileFailsNoCallOnUnprotectedItems() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        try FileManager.default.createDirectory(at: box.device.directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: box.device.recordsDirectory, withIntermediateDirectories: true)
        try Data("bplist00 damaged".utf8).write(to: box.device.biometryURL)
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Protected.service,
                                   kSecAttrAccount as String: "plain", kSecValueData as String: Data("v".utf8)]
        #expect(throws: Never.self) { try app.add(item) }
        let read: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "plain",
                                   kSecReturnData as String: true]
        #expect(try app.copyMatching(read) as? Data == Data("v".utf8))
        #expect(Protected.add(app, "alice", .biometryAny) == errSecInvalidKeychain)
    }

    @Test func extremeCountersNeitherOverflowNorUnlock() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", .biometryCurrentSet) == errSecSuccess)
        try box.device.changeBiometry { sensor, _ in
            sensor.enrollmentGeneration = Int.max
            sensor.failedMatches = Int.max
        }
        // The enrolment changed (to Int.max): the item is invalidated; the lockout holds.
        #expect(Protected.read(app, "alice").status == errSecItemNotFound)
        #expect(try box.device.biometry().isLockedOut)
        try box.device.enrollBiometry()
        #expect(try box.device.biometry().enrollmentGeneration == Int.min)
        // Enrolling ended the lockout; lock it out again at the limit.
        try box.device.changeBiometry { sensor, _ in sensor.failedMatches = Int.max }
        var saturated = try box.device.biometry()
        saturated.recordFailedMatch()
        #expect(saturated.failedMatches == Int.max)
        let context = LAContext(simulatedDevice: box.device)
        #expect(Protected.add(app, "bob", .userPresence) == errSecSuccess)
        try box.device.scriptBiometry([.noMatch])
        // Locked out, so .userPresence asks for the passcode; a wrong one fails.
        #expect(Protected.read(app, "bob", [kSecUseAuthenticationContext as String: context]).status == errSecAuthFailed)
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .passcode)
    }

    @Test func oddReasonsAndTitlesAreCarriedAsGiven() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let reason = "caf\u{E9} \u{1F512}\n\"quoted\" " + String(repeating: "x", count: 900)
        try box.device.scriptBiometry([.match])
        let context = LAContext(simulatedDevice: box.device)
        context.localizedFallbackTitle = ""
        context.localizedCancelTitle = "\u{0}"
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason))
        #expect(try box.device.biometry().presentedPrompts.last?.reason == reason)
    }

    /// Outcomes and prompt reasons are bounded, so neither a script nor an app's long
    /// reasons can grow the sensor's file past what the device reads back.
    @Test func theQueueAndTheReasonsAreBoundedSoTheSensorStaysReadable() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.device.scriptBiometry(Array(repeating: .match, count: SimulatedBiometry.scriptedOutcomeLimit - 1))
        #expect(throws: SharedKeychain.KeychainError.self) { try box.device.scriptBiometry([.match, .match]) }
        #expect(try box.device.biometry().scriptedOutcomes.count == SimulatedBiometry.scriptedOutcomeLimit - 1)
        // A full history of very long reasons (escaped in the file) still reads back.
        let reason = String(repeating: "&<\u{1F512}", count: 4_000)
        for _ in 0..<(SimulatedBiometry.promptHistoryLimit + 5) {
            #expect(try await LAContext(simulatedDevice: box.device).evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason))
        }
        let sensor = try box.device.biometry()
        #expect(sensor.presentedPrompts.count == SimulatedBiometry.promptHistoryLimit)
        let kept = try #require(sensor.presentedPrompts.last?.reason)
        #expect(kept.count == SimulatedBiometry.reasonLimit && kept.hasSuffix("…") && reason.hasPrefix(kept.dropLast()))
    }
}
#endif
