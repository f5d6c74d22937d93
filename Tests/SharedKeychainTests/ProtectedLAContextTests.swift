#if !canImport(Darwin)
import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import LocalAuthentication

/// Part 2 of issue 13: LAContext, LAPolicy and LAError against the scripted sensor.
@Suite(.dedicatedThreads) struct ProtectedLAContextTests {
    @Test func errorCodesAndPoliciesHaveApplesRawValues() {
        let codes: [(LAError.Code, Int)] = [(.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
                                            (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7),
                                            (.biometryLockout, -8), (.appCancel, -9), (.invalidContext, -10), (.notInteractive, -1004)]
        for (code, raw) in codes { #expect(code.rawValue == raw) }
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
        let ns = LAError(.userCancel) as NSError
        #expect(ns.domain == LAErrorDomain && ns.domain == "com.apple.LocalAuthentication" && ns.code == -2)
    }

    @Test func canEvaluatePolicyReportsWhatStandsInTheWay() throws {
        let box = try Sandbox()
        defer { box.remove() }
        func check(_ policy: LAPolicy) -> (Bool, Int?, LABiometryType) {
            let context = LAContext(simulatedDevice: box.device)
            var error: NSError?
            let can = context.canEvaluatePolicy(policy, error: &error)
            return (can, error?.code, context.biometryType)
        }
        #expect(LAContext(simulatedDevice: box.device).biometryType == .none)   // unknown before canEvaluatePolicy
        #expect(check(.deviceOwnerAuthenticationWithBiometrics) == (true, nil, .faceID))
        try box.device.setBiometryKind(.touchID)
        try box.device.removeBiometryEnrollment()
        #expect(check(.deviceOwnerAuthenticationWithBiometrics) == (false, LAError.biometryNotEnrolled.rawValue, .touchID))
        #expect(check(.deviceOwnerAuthentication) == (true, nil, .touchID))
        try box.device.setBiometryKind(.none)
        #expect(check(.deviceOwnerAuthenticationWithBiometrics) == (false, LAError.biometryNotAvailable.rawValue, .none))
        try box.device.setPasscode(false)
        #expect(check(.deviceOwnerAuthentication) == (false, LAError.passcodeNotSet.rawValue, .none))
        try box.device.setPasscode(true)
        try box.device.resetBiometry()
        try box.device.changeBiometry { sensor, _ in sensor.failedMatches = SimulatedBiometry.lockoutThreshold }
        #expect(check(.deviceOwnerAuthenticationWithBiometrics) == (false, LAError.biometryLockout.rawValue, .faceID))
    }

    @Test func evaluatePolicyMapsEveryOutcome() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.device.scriptBiometry([.match, .cancel, .fallback, .systemCancel, .noMatch])
        let expected: [LAError.Code?] = [nil, .userCancel, .userFallback, .systemCancel, .authenticationFailed]
        for code in expected {
            let context = LAContext(simulatedDevice: box.device)
            do {
                #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in"))
                #expect(code == nil)
            } catch let error as LAError {
                #expect(error.code == code)
            }
        }
        #expect(try box.device.biometry().presentedPrompts.map(\.reason) == Array(repeating: "Sign in", count: 5))
    }

    @Test func theReplyFormAnswersOnAnotherQueue() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.device.scriptBiometry([.cancel])
        let context = LAContext(simulatedDevice: box.device)
        let (success, error): (Bool, (any Error)?) = await withCheckedContinuation { done in
            context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Pay") { success, error in
                done.resume(returning: (success, error))
            }
        }
        #expect(!success)
        let failure = try #require(error)
        #expect(LAError.userCancel ~= failure)
    }

    @Test func lockoutAfterFiveFailuresIsEndedByAPasscodeEvaluation() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let context = LAContext(simulatedDevice: box.device)
        try box.device.scriptBiometry(Array(repeating: .noMatch, count: 5))
        for _ in 0..<5 {
            do {
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                Issue.record("a failed match evaluated")
            } catch LAError.authenticationFailed {
            }
        }
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
            Issue.record("a locked-out sensor evaluated")
        } catch LAError.biometryLockout {
        }
        #expect(try Protected.prompts(box.device) == 5)
        // deviceOwnerAuthentication goes to the passcode, which ends the lockout.
        try box.device.scriptBiometry([.match, .match])
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .passcode)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        #expect(try box.device.biometry().presentedPrompts.last?.kind == .biometry)
    }

    @Test func domainStateChangesWithEnrolment() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let first = LAContext(simulatedDevice: box.device)
        #expect(first.evaluatedPolicyDomainState == nil)
        #expect(first.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
        let before = try #require(first.evaluatedPolicyDomainState)
        try box.device.enrollBiometry()
        try box.device.scriptBiometry([.match])
        let second = LAContext(simulatedDevice: box.device)
        #expect(try await second.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        #expect(second.evaluatedPolicyDomainState != nil && second.evaluatedPolicyDomainState != before)
    }

    @Test func invalidationInteractionAndReuse() async throws {
        let box = try Sandbox()
        defer { box.remove() }
        let context = LAContext(simulatedDevice: box.device)
        context.interactionNotAllowed = true
        await #expect(throws: LAError.self) { try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r") }
        context.interactionNotAllowed = false
        context.touchIDAuthenticationAllowableReuseDuration = 10_000
        #expect(context.touchIDAuthenticationAllowableReuseDuration == LATouchIDAuthenticationMaximumAllowableReuseDuration)
        try box.device.scriptBiometry([.match])
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        // Within the reuse duration: no second prompt (nothing more is scripted).
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
        #expect(try Protected.prompts(box.device) == 1)
        context.invalidate()
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
            Issue.record("an invalidated context evaluated")
        } catch let error as LAError {
            #expect(error.code == .invalidContext)
        }
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(error?.code == LAError.invalidContext.rawValue)
    }

    @Test func aContextFindsTheDeviceOfTheBoundKeychain() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.device.setBiometryKind(.touchID)
        let type = asProcess(box.keychain(Targets.app)) { () -> LABiometryType in
            let context = LAContext()
            _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
            return context.biometryType
        }
        #expect(type == .touchID)
    }
}
#endif
