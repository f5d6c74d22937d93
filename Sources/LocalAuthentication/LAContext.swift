// The module `import LocalAuthentication` resolves to on Linux (declared there
// only, see Package.swift). The emulated device has no biometry and no user to
// ask: every evaluation fails with `LAError.biometryNotAvailable`, as on a device
// without Face ID or Touch ID, so code paths for that case run in tests.
@_exported import SharedKeychain

/// The policies of `LAContext.evaluatePolicy`, with Apple's raw values.
public enum LAPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
}

/// The kind of biometry a device has; the emulated device has none.
public enum LABiometryType: Int, Sendable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4
}

/// The error domain of LocalAuthentication's errors.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// LocalAuthentication's error, with Apple's codes.
public struct LAError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case notInteractive = -1004
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let userCancel = Code.userCancel
    public static let authenticationFailed = Code.authenticationFailed

    public var description: String {
        "LAError \(code.rawValue) (\(code)): the emulated device has no biometry and no user to authenticate"
    }

    /// The same error as an `NSError` in ``LAErrorDomain``.
    var nsError: NSError { NSError(domain: LAErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: description]) }
}

/// An authentication context. Its properties are kept; evaluations fail with
/// ``LAError/Code/biometryNotAvailable``.
open class LAContext: NSObject, @unchecked Sendable {
    open var localizedReason: String = ""
    open var localizedCancelTitle: String?
    open var localizedFallbackTitle: String?
    open var interactionNotAllowed: Bool = false
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0
    /// Always ``LABiometryType/none``.
    open var biometryType: LABiometryType { .none }

    public override init() { super.init() }

    /// False: the emulated device cannot evaluate any policy. `error` receives
    /// `LAError.biometryNotAvailable` in ``LAErrorDomain``.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        error?.pointee = LAError(.biometryNotAvailable).nsError
        return false
    }

    /// Calls `reply` (on another thread, as Apple's does) with false and `LAError.biometryNotAvailable`.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        DispatchQueue.global().async { reply(false, LAError(.biometryNotAvailable)) }
    }

    /// Throws `LAError.biometryNotAvailable`.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        throw LAError(.biometryNotAvailable)
    }

    /// Ends the context; later evaluations fail as before.
    open func invalidate() {}
}
