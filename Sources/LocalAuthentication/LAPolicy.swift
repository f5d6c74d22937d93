#if !canImport(Darwin)
import Foundation
import SharedKeychain

/// The policies an `LAContext` evaluates, with Apple's raw values.
public enum LAPolicy: Int, Sendable, Hashable {
    /// Touch ID or Face ID only; the fallback button hands control back to the app (`LAError.userFallback`).
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, or the device passcode when biometry is unavailable, locked out or declined.
    case deviceOwnerAuthentication = 2

    var goal: AuthenticationGoal {
        switch self {
        case .deviceOwnerAuthenticationWithBiometrics:
            return AuthenticationGoal(allowsBiometry: true, allowsPasscode: false, requirements: [AccessPolicy(requiring: .biometryAny)])
        case .deviceOwnerAuthentication:
            return AuthenticationGoal(allowsBiometry: true, allowsPasscode: true, requirements: [AccessPolicy(requiring: .userPresence)])
        }
    }
}

/// The biometric hardware of the device, with Apple's raw values.
public enum LABiometryType: Int, Sendable, Hashable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4

    init(_ kind: SimulatedBiometry.Kind) {
        switch kind {
        case .none: self = .none
        case .touchID: self = .touchID
        case .faceID: self = .faceID
        }
    }
}

/// The longest `touchIDAuthenticationAllowableReuseDuration` (5 minutes).
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300
#endif
