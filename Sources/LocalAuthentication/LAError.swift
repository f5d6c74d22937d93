#if !canImport(Darwin)
import Foundation
import SharedKeychain

/// The error domain of `LAError` (`(error as NSError).domain`).
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// LocalAuthentication's errors, with Apple's codes. Match them as on iOS:
/// `catch let error as LAError { switch error.code { case .userCancel: ... } }`,
/// `catch LAError.userCancel`, or `(error as NSError).code == LAError.Code.userCancel.rawValue`.
public struct LAError: Error, Sendable, Hashable, CustomNSError, LocalizedError, CustomStringConvertible {
    /// The codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        /// The user did not prove who they are (a face or finger, or the passcode, did not match).
        case authenticationFailed = -1
        case userCancel = -2
        /// The user tapped the fallback button of a biometrics-only evaluation.
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        /// Too many failed matches; a passcode evaluation unlocks biometry.
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case notInteractive = -1004

        @available(*, deprecated, renamed: "biometryNotAvailable")
        public static var touchIDNotAvailable: Code { .biometryNotAvailable }
        @available(*, deprecated, renamed: "biometryNotEnrolled")
        public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
        @available(*, deprecated, renamed: "biometryLockout")
        public static var touchIDLockout: Code { .biometryLockout }
    }

    public let code: Code
    /// What happened, in words.
    public let message: String

    public init(_ code: Code, message: String? = nil) {
        self.code = code
        self.message = message ?? Self.defaultMessage(code)
    }

    init(_ outcome: AuthenticationOutcome) {
        let code = Code(rawValue: outcome.laErrorCode) ?? .authenticationFailed
        self.init(code, message: outcome.explanation.prefix(1).uppercased() + outcome.explanation.dropFirst() + ".")
    }

    public static let authenticationFailed = Code.authenticationFailed
    public static let userCancel = Code.userCancel
    public static let userFallback = Code.userFallback
    public static let systemCancel = Code.systemCancel
    public static let passcodeNotSet = Code.passcodeNotSet
    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let biometryNotEnrolled = Code.biometryNotEnrolled
    public static let biometryLockout = Code.biometryLockout
    public static let appCancel = Code.appCancel
    public static let invalidContext = Code.invalidContext
    public static let notInteractive = Code.notInteractive

    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var errorDescription: String? { message }
    public var description: String { "LAError(\(code), \(code.rawValue)): \(message)" }

    static func defaultMessage(_ code: Code) -> String {
        switch code {
        case .appCancel: return "The app canceled the evaluation (LAContext.invalidate())."
        case .invalidContext: return "The LAContext was invalidated; create a new one."
        default: return "Authentication did not succeed (\(code))."
        }
    }
}

extension LAError.Code {
    /// `catch LAError.userCancel { ... }`.
    public static func ~= (code: LAError.Code, error: any Error) -> Bool {
        (error as? LAError)?.code == code
    }
}
#endif
