import Foundation

/// The state of one simulated device an authentication ran in. What the user proved
/// counts only while this state lasts, on this device (see ``AuthenticationProof``).
struct AuthenticationEpoch: Sendable, Hashable {
    /// The device (its root and name) that ran the authentication.
    var device: KeychainDevice
    /// The life of the device's sensor file: made at its first authentication, gone
    /// with an erase, so a device erased and set up again is another device.
    var incarnation: String?
    /// Locks, restarts and passcode changes so far (``DeviceState``).
    var securityGeneration: Int
    /// Biometric lockouts begun or ended so far (``SimulatedBiometry``).
    var lockoutCount: Int
    /// The enrolment then.
    var enrollment: Int

    init(device: KeychainDevice, sensor: SimulatedBiometry, state: DeviceState) {
        self.device = device
        incarnation = sensor.incarnation
        securityGeneration = state.securityGeneration
        lockoutCount = sensor.lockoutCount
        enrollment = sensor.enrollmentGeneration
    }
}

/// What one authentication proved, on which device, in which state, and when: what an
/// `LAContext` keeps and later keychain calls reuse without a prompt.
///
/// A context's authentication is bound to the device that performed it (on Apple's
/// platforms a context never meets another device; with simulated devices in one
/// process it can, and then it has proved nothing there). Apple documents no expiry
/// but `invalidate()`; here, choosing the safer side, a device lock or restart, a
/// passcode removal or change and an erase end all of it, and a biometric lockout or
/// an enrolment change ends its biometric match (ProtectedItems.md lists the choices).
package struct AuthenticationProof: Sendable {
    var epoch: AuthenticationEpoch
    package var factors: AuthenticationFactors
    package var at: Date
    /// The sensor's kind and `evaluatedPolicyDomainState` when it was proved.
    package var biometryKind: SimulatedBiometry.Kind
    package var domainState: Data?

    init(device: KeychainDevice, sensor: SimulatedBiometry, state: DeviceState, factors: AuthenticationFactors, at: Date = Date()) {
        epoch = AuthenticationEpoch(device: device, sensor: sensor, state: state)
        self.factors = factors
        self.at = at
        biometryKind = sensor.kind
        domainState = sensor.domainState
    }

    /// What of it still holds on `device`, whose sensor and state are these now:
    /// nothing on another device or after the state it was proved in ended; no
    /// biometric match once biometry locked out, changed enrolment or became unusable.
    package func factors(on device: KeychainDevice, sensor: SimulatedBiometry, state: DeviceState) -> AuthenticationFactors {
        factors(now: AuthenticationEpoch(device: device, sensor: sensor, state: state),
                biometryUsable: sensor.canScan(passcodeSet: state.isPasscodeSet), passcodeSet: state.isPasscodeSet)
    }

    private func factors(now: AuthenticationEpoch, biometryUsable: Bool, passcodeSet: Bool) -> AuthenticationFactors {
        guard now.device == epoch.device, now.incarnation != nil, now.incarnation == epoch.incarnation,
              now.securityGeneration == epoch.securityGeneration, passcodeSet else { return AuthenticationFactors() }
        var still = factors
        if now.lockoutCount != epoch.lockoutCount || now.enrollment != epoch.enrollment || !biometryUsable {
            still.biometryEnrollment = nil
        }
        return still
    }

    /// This proof and a newer one: what of this one still holds in the newer one's
    /// state, with what the newer one proved; the newer one's state and time.
    package func merged(with newer: AuthenticationProof) -> AuthenticationProof {
        // Usability is checked again when the proof is used; here only the state counts.
        var still = factors(now: newer.epoch, biometryUsable: true, passcodeSet: true)
        if let enrollment = newer.factors.biometryEnrollment { still.biometryEnrollment = enrollment }
        still.passcode = still.passcode || newer.factors.passcode
        var merged = newer
        merged.factors = still
        return merged
    }
}
