/// Why a keychain call on a protected item failed: carried by
/// ``KeychainError/authentication(_:)``, with the status Apple's call returns.
public struct AuthenticationFailure: Sendable, Hashable, CustomStringConvertible {
    /// -128 `errSecUserCanceled`, -25293 `errSecAuthFailed`, -25308 `errSecInteractionNotAllowed`.
    public let status: Int32
    /// The call.
    public let operation: String
    /// The item, never its value.
    public let item: String
    /// What happened.
    public let problem: String

    init(status: Int32, operation: String, item: String, problem: String) {
        self.status = status
        self.operation = operation
        self.item = item
        self.problem = problem
    }

    init(_ outcome: AuthenticationOutcome, operation: String, item: String) {
        self.init(status: outcome.keychainStatus, operation: operation, item: item, problem: outcome.explanation)
    }

    var constantName: String {
        switch status {
        case SecStatus.userCanceled: return "errSecUserCanceled"
        case SecStatus.interactionNotAllowed: return "errSecInteractionNotAllowed"
        case SecStatus.itemNotFound: return "errSecItemNotFound"
        default: return "errSecAuthFailed"
        }
    }

    /// What the app should do about it.
    var advice: String {
        switch status {
        case SecStatus.userCanceled: return "Handle the cancel: offer to try again, and do not treat it as a missing item."
        case SecStatus.interactionNotAllowed: return "Read it again where a prompt may be shown (the app in the foreground, UI allowed)."
        default: return "Offer another sign-in; after \(SimulatedBiometry.lockoutThreshold) failed matches in a row only the passcode (LAPolicy.deviceOwnerAuthentication) unlocks biometry."
        }
    }

    public var description: String {
        "\(constantName): \(operation): \(item) is protected by access control and \(problem). \(advice)"
    }
}
