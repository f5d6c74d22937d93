import AppGroupContainer
import Foundation

/// Why an authentication ended without success, in LocalAuthentication's terms;
/// the keychain maps these to its status codes.
package enum AuthenticationOutcome: String, Error, Sendable, Hashable, Codable {
    case userCancel, userFallback, systemCancel, authenticationFailed
    case passcodeNotSet, biometryNotAvailable, biometryNotEnrolled, biometryLockout
    case notInteractive, invalidContext

    /// The `LAError.Code` raw value.
    package var laErrorCode: Int {
        switch self {
        case .authenticationFailed: return -1
        case .userCancel: return -2
        case .userFallback: return -3
        case .systemCancel: return -4
        case .passcodeNotSet: return -5
        case .biometryNotAvailable: return -6
        case .biometryNotEnrolled: return -7
        case .biometryLockout: return -8
        case .invalidContext: return -10
        case .notInteractive: return -1004
        }
    }

    /// What a keychain call returns for it: -128 when the user (or the system) backed
    /// out, -25308 when no UI was allowed, -25293 for every failure to authenticate.
    var keychainStatus: Int32 {
        switch self {
        case .userCancel, .userFallback, .systemCancel: return SecStatus.userCanceled
        case .notInteractive: return SecStatus.interactionNotAllowed
        default: return SecStatus.authFailed
        }
    }

    /// What happened, for messages.
    package var explanation: String {
        switch self {
        case .userCancel: return "the user canceled the prompt"
        case .userFallback: return "the user chose the fallback button, and this access accepts no passcode"
        case .systemCancel: return "the system canceled the prompt"
        case .authenticationFailed: return "the face or finger (or passcode) did not match"
        case .passcodeNotSet: return "the device has no passcode"
        case .biometryNotAvailable: return "the device has no biometric sensor"
        case .biometryNotEnrolled: return "no face or finger is enrolled"
        case .biometryLockout: return "biometry is locked out after \(SimulatedBiometry.lockoutThreshold) failed matches; a passcode entry unlocks it"
        case .notInteractive: return "user interaction is not allowed (kSecUseAuthenticationUIFail or LAContext.interactionNotAllowed)"
        case .invalidContext: return "the LAContext was invalidated"
        }
    }
}

/// What an authentication must prove, and what it may ask for: data, so that a
/// target can ask the device to run the prompts (see ``Authenticator``).
package struct AuthenticationGoal: Codable, Sendable {
    var allowsBiometry: Bool
    var allowsPasscode: Bool
    /// Every one of these must be satisfied.
    var requirements: [AccessPolicy]

    package init(allowsBiometry: Bool, allowsPasscode: Bool, requirements: [AccessPolicy]) {
        self.allowsBiometry = allowsBiometry
        self.allowsPasscode = allowsPasscode
        self.requirements = requirements
    }

    /// True when these factors are enough.
    package func isMet(_ factors: AuthenticationFactors) -> Bool { requirements.allSatisfy { $0.isSatisfied(by: factors) } }
}

/// Runs prompts against a device's simulated sensor: each prompt consumes one
/// scripted outcome under the sensor's lock, so processes sharing the device take
/// turns and each outcome is used once.
///
/// The sensor is the device's record, which a target launched by a simulated
/// device may read but not write: there the prompts run in the device (the test
/// process), asked over the target's channel (``KeychainDeviceRequests``).
package struct Authenticator {
    let device: KeychainDevice

    package init(device: KeychainDevice) { self.device = device }

    /// Prompts until `goal` is met or a prompt fails. Biometry first when it helps and
    /// can scan; the passcode when biometry cannot or the user chose the fallback.
    /// Returns what was proved, bound to this device and the state it was proved in
    /// (read under the sensor's lock, after the prompts).
    package func authenticate(_ goal: AuthenticationGoal, reason: String) throws -> Result<AuthenticationProof, AuthenticationOutcome> {
        if device.isOwnedByLaunchingDevice { return try KeychainDeviceRequests.authenticate(goal, reason: reason, on: device) }
        return try authenticateHere(goal, reason: reason)
    }

    /// ``authenticate(_:reason:)`` in this process, on the sensor's file: the device's own.
    func authenticateHere(_ goal: AuthenticationGoal, reason: String) throws -> Result<AuthenticationProof, AuthenticationOutcome> {
        let (result, sensor, state) = try promptHere(goal, reason: reason)
        return result.map { AuthenticationProof(device: device, sensor: sensor, state: state, factors: $0) }
    }

    /// The prompts, under the sensor's lock: what they proved, and the sensor (after
    /// them) and the device state (read under the same lock) they ran in.
    func promptHere(_ goal: AuthenticationGoal, reason: String) throws
        -> (Result<AuthenticationFactors, AuthenticationOutcome>, SimulatedBiometry, DeviceState) {
        try device.changeBiometry { sensor, state in
            sensor.beginIncarnation()
            return (prompt(goal, reason: reason, &sensor, state), sensor, state)
        }
    }

    /// The prompts of ``authenticate(_:reason:)``, on the sensor under its lock.
    private func prompt(_ goal: AuthenticationGoal, reason: String, _ sensor: inout SimulatedBiometry,
                        _ state: DeviceState) -> Result<AuthenticationFactors, AuthenticationOutcome> {
        var factors = AuthenticationFactors()
        var biometryDeclined = false
        // At most one biometric and one passcode prompt: the loop ends long before.
        for _ in 0..<4 {
            if goal.isMet(factors) { return .success(factors) }
            let scanned = AuthenticationFactors(biometryEnrollment: sensor.enrollmentGeneration, passcode: factors.passcode)
            let entered = AuthenticationFactors(biometryEnrollment: factors.biometryEnrollment, passcode: true)
            let both = AuthenticationFactors(biometryEnrollment: sensor.enrollmentGeneration, passcode: true)
            let canScan = goal.allowsBiometry && !biometryDeclined && factors.biometryEnrollment == nil && sensor.canScan(passcodeSet: state.isPasscodeSet)
            let canEnter = goal.allowsPasscode && !factors.passcode && state.isPasscodeSet
            // A scan is shown only when it counts: alone, or with a passcode the goal needs besides.
            if canScan && (goal.isMet(scanned) || (canEnter && goal.isMet(both) && !goal.isMet(entered))) {
                switch sensor.present(.biometry, reason: reason) {
                case .match?:
                    factors.biometryEnrollment = sensor.enrollmentGeneration
                    sensor.clearFailedMatches()
                case .noMatch?:
                    sensor.recordFailedMatch()
                    return .failure(.authenticationFailed)
                case .cancel?: return .failure(.userCancel)
                case .fallback?:
                    guard canEnter else { return .failure(.userFallback) }
                    biometryDeclined = true
                case .systemCancel?: return .failure(.systemCancel)
                case nil: return .failure(unscripted(.biometry, reason))
                }
            } else if canEnter && (goal.isMet(entered) || goal.isMet(both)) {
                switch sensor.present(.passcode, reason: reason) {
                case .match?:
                    factors.passcode = true
                    // Entering the passcode ends a biometric lockout, as on iOS.
                    sensor.clearFailedMatches()
                case .noMatch?: return .failure(.authenticationFailed)
                case .cancel?, .fallback?: return .failure(.userCancel)
                case .systemCancel?: return .failure(.systemCancel)
                case nil: return .failure(unscripted(.passcode, reason))
                }
            } else {
                return .failure(Self.whyUnavailable(goal, sensor, state))
            }
        }
        return goal.isMet(factors) ? .success(factors) : .failure(.authenticationFailed)
    }

    /// Why no prompt could help, the most specific reason first.
    static func whyUnavailable(_ goal: AuthenticationGoal, _ sensor: SimulatedBiometry, _ state: DeviceState) -> AuthenticationOutcome {
        if !state.isPasscodeSet { return .passcodeNotSet }
        if goal.allowsBiometry {
            if sensor.kind == .none { return .biometryNotAvailable }
            if !sensor.isEnrolled { return .biometryNotEnrolled }
            if sensor.isLockedOut { return .biometryLockout }
        }
        return .authenticationFailed
    }

    /// A prompt nobody scripted: answered as a system cancel, loudly, since a test
    /// that forgot to script one would otherwise only see -128.
    private func unscripted(_ kind: SimulatedBiometry.PromptKind, _ reason: String) -> AuthenticationOutcome {
        Diagnostics.warn("SharedKeychain: a \(kind) prompt (\"\(reason)\") on \(device) had no scripted outcome and was answered as a system cancel; script one with KeychainDevice.scriptBiometry([.match]) (or `KeychainProbe biometry script match`)")
        return .systemCancel
    }
}
