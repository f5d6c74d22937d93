#if !canImport(Darwin)
import AppGroupContainer
import Foundation
import SharedKeychain

/// LocalAuthentication's context, evaluated against the simulated device's sensor
/// (see ``SimulatedBiometry``): each prompt consumes one scripted outcome, so code
/// written for iOS runs every path (success, cancel, failed match, lockout, no
/// enrolment, re-enrolment) in tests, with no human.
///
/// The device is the one of the ``Keychain`` bound to the current task
/// (`Keychain.withCurrent`), else the environment's (`APP_GROUP_CONTAINERS_ROOT`,
/// `APP_GROUP_KEYCHAIN_DEVICE`), resolved when the context evaluates; or the one
/// given to ``init(simulatedDevice:)``.
///
/// Passed as `kSecUseAuthenticationContext`, a context that has authenticated is
/// reused by later keychain calls without a prompt, until ``invalidate()``, on the
/// device that authenticated it only, and only while the state it was proved in
/// lasts: a device lock or restart, a passcode change or an erase ends it, a biometric
/// lockout or an enrolment change ends its biometric match (see `AuthenticationProof`).
open class LAContext: NSObject, @unchecked Sendable, AuthenticationContextValue {
    private let lock = NSLock()
    private let simulatedDevice: KeychainDevice?
    private var settings = Settings()
    private var isInvalidated = false
    /// The context's latest authentication, with the device and state it was proved in.
    private var proved: AuthenticationProof?
    private var knownBiometryType = LABiometryType.none
    private var domainState: Data?

    private struct Settings {
        var localizedReason = ""
        var localizedFallbackTitle: String?
        var localizedCancelTitle: String?
        var interactionNotAllowed = false
        var reuseDuration: TimeInterval = 0
    }

    public override init() {
        simulatedDevice = nil
        super.init()
    }

    /// A context that evaluates against `device`, whatever the task or environment names.
    public init(simulatedDevice device: KeychainDevice) {
        simulatedDevice = device
        super.init()
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: Settings

    /// The reason shown when a keychain call prompts with this context.
    open var localizedReason: String {
        get { locked { settings.localizedReason } }
        set { locked { settings.localizedReason = newValue } }
    }
    /// The fallback button's title (nil: the system's; "" hides it).
    open var localizedFallbackTitle: String? {
        get { locked { settings.localizedFallbackTitle } }
        set { locked { settings.localizedFallbackTitle = newValue } }
    }
    /// The cancel button's title (nil: the system's).
    open var localizedCancelTitle: String? {
        get { locked { settings.localizedCancelTitle } }
        set { locked { settings.localizedCancelTitle = newValue } }
    }
    /// True: evaluations and keychain calls fail instead of prompting
    /// (`LAError.notInteractive`, `errSecInteractionNotAllowed`).
    open var interactionNotAllowed: Bool {
        get { locked { settings.interactionNotAllowed } }
        set { locked { settings.interactionNotAllowed = newValue } }
    }
    /// Seconds for which this context's last successful biometric evaluation lets a
    /// new evaluation succeed without a prompt (0, the default: always prompt); at most
    /// ``LATouchIDAuthenticationMaximumAllowableReuseDuration``. Only on the device it was
    /// made on, and only while that match still holds (no lockout, enrolment change,
    /// lock or passcode change since).
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { locked { settings.reuseDuration } }
        set { locked { settings.reuseDuration = min(max(0, newValue), LATouchIDAuthenticationMaximumAllowableReuseDuration) } }
    }

    // MARK: Results

    /// The sensor's kind, known once ``canEvaluatePolicy(_:error:)`` ran (`.none` before, as on iOS).
    open var biometryType: LABiometryType { locked { knownBiometryType } }

    /// The enrolment's opaque state, after a biometric policy was checked or evaluated;
    /// it changes whenever a face or finger is enrolled or removed.
    open var evaluatedPolicyDomainState: Data? { locked { domainState } }

    // MARK: Evaluation

    /// Whether `policy` can be evaluated now; when not, `error` receives an `LAError`
    /// as `NSError` (domain ``LAErrorDomain``, code the `LAError.Code` raw value).
    open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        let problem: AuthenticationOutcome?
        if locked({ isInvalidated }) {
            problem = .invalidContext
        } else {
            do {
                let device = try resolveDevice()
                let sensor = try device.biometry()
                let state = try device.state()
                problem = Self.preflight(policy, sensor, state)
                locked {
                    knownBiometryType = LABiometryType(sensor.kind)
                    if problem == nil && policy == .deviceOwnerAuthenticationWithBiometrics { domainState = sensor.domainState }
                }
            } catch let failure {
                Diagnostics.warn("LAContext.canEvaluatePolicy: the simulated device cannot be read (\(failure)); answering biometryNotAvailable")
                problem = .biometryNotAvailable
            }
        }
        if let problem {
            error?.pointee = LAError(problem) as NSError
            return false
        }
        return true
    }

    /// Evaluates `policy`, consuming scripted prompts, and calls `reply` on another
    /// queue: `(true, nil)`, or `(false, LAError)`.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        // Resolved here: the task's bound keychain does not travel to the reply queue.
        let device = Result { try resolveDevice() }
        // The reply runs as the caller's identity (its IdentityScope), as in its own process.
        let identity = CarriedIdentity.here()
        DispatchQueue.global().async {
            let error = self.evaluate(policy, localizedReason, device)
            identity.run { reply(error == nil, error) }
        }
    }

    /// Evaluates `policy`; true on success, else throws an `LAError`.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        if let error = evaluate(policy, localizedReason, Result { try resolveDevice() }) { throw error }
        return true
    }

    /// Ends the context: later evaluations fail with `LAError.invalidContext`, and keychain
    /// calls no longer reuse what it proved.
    open func invalidate() {
        locked {
            isInvalidated = true
            proved = nil
        }
    }

    // MARK: Plumbing

    private func evaluate(_ policy: LAPolicy, _ reason: String, _ device: Result<KeychainDevice, any Error>) -> LAError? {
        let (invalidated, interaction, reuse, earlier) = locked {
            (isInvalidated, !settings.interactionNotAllowed, settings.reuseDuration, proved)
        }
        if invalidated { return LAError(.invalidContext) }
        let goal = policy.goal
        // Reuse of a recent match: what still holds of it on this device, as it is now.
        if reuse > 0, let earlier, Date().timeIntervalSince(earlier.at) <= reuse, let device = try? device.get(),
           let sensor = try? device.biometry(), let state = try? device.state() {
            let still = earlier.factors(on: device, sensor: sensor, state: state)
            if still.biometryEnrollment != nil, goal.isMet(still) { return nil }
        }
        if !interaction { return LAError(.notInteractive) }
        do {
            let device = try device.get()
            let sensor = try device.biometry()
            if let problem = Self.preflight(policy, sensor, try device.state()) {
                locked { knownBiometryType = LABiometryType(sensor.kind) }
                return LAError(problem)
            }
            switch try Authenticator(device: device).authenticate(goal, reason: reason) {
            case let .success(proof):
                recordKeychainAuthentication(proof)
                return nil
            case let .failure(outcome):
                return LAError(outcome)
            }
        } catch {
            return LAError(.biometryNotAvailable, message: "The simulated device cannot be read: \(error)")
        }
    }

    /// What stops `policy` before any prompt.
    static func preflight(_ policy: LAPolicy, _ sensor: SimulatedBiometry, _ state: DeviceState) -> AuthenticationOutcome? {
        if !state.isPasscodeSet { return .passcodeNotSet }
        guard policy == .deviceOwnerAuthenticationWithBiometrics else { return nil }
        if sensor.kind == .none { return .biometryNotAvailable }
        if !sensor.isEnrolled { return .biometryNotEnrolled }
        if sensor.isLockedOut { return .biometryLockout }
        return nil
    }

    private func resolveDevice() throws -> KeychainDevice {
        if let simulatedDevice { return simulatedDevice }
        // The keychain of the calling scope or environment names the device; a process
        // with no identity still has a device (its environment's). A refused scope is
        // not that: the environment's device would be another target's.
        _ = try IdentityScope.active
        if let keychain = try? Keychain.current() { return keychain.device }
        return try KeychainDevice.fromEnvironment()
    }

    // MARK: AuthenticationContextValue

    package var keychainView: AuthenticationContextView {
        locked {
            AuthenticationContextView(reason: settings.localizedReason, interactionNotAllowed: settings.interactionNotAllowed,
                                      isInvalidated: isInvalidated, proved: proved)
        }
    }

    package func recordKeychainAuthentication(_ proof: AuthenticationProof) {
        locked {
            // Of an earlier authentication, only what still holds in this one's state
            // (and on its device) is kept with it.
            proved = proved.map { $0.merged(with: proof) } ?? proof
            knownBiometryType = LABiometryType(proof.biometryKind)
            if proof.factors.biometryEnrollment != nil { domainState = proof.domainState }
        }
    }
}
#endif
