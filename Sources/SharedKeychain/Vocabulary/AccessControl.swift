import Foundation

// User-authentication protection (Face ID, Touch ID, the passcode), declared with
// Apple's names so that code using it compiles here. Its behaviour is not
// emulated yet: an item that carries kSecAttrAccessControl, or a call that passes
// kSecUseAuthenticationContext, gets errSecUnimplemented (-4) with a message
// saying so, rather than being stored without the protection it asked for.
#if !canImport(Darwin)

/// An item's access control (`SecAccessControlCreateWithFlags`); refused by the
/// `SecItem...` functions with `errSecUnimplemented` for now.
public let kSecAttrAccessControl: CFString = RawKey.accessControl
/// An `LAContext` to authenticate with; refused with `errSecUnimplemented` for now.
public let kSecUseAuthenticationContext: CFString = RawKey.useAuthenticationContext
/// Whether the system may show authentication UI; refused with `errSecUnimplemented` for now.
public let kSecUseAuthenticationUI: CFString = RawKey.useAuthenticationUI
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// The prompt shown when an item needs authentication (deprecated by Apple; declared for old code).
public let kSecUseOperationPrompt: CFString = RawKey.useOperationPrompt

/// Apple's flags for `SecAccessControlCreateWithFlags`, with Apple's raw values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = biometryAny
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = biometryCurrentSet
}

/// An access control object: the accessibility class and the flags it was made with.
public final class SecAccessControl: Sendable, CustomStringConvertible {
    /// The `kSecAttrAccessible...` class given.
    public let protection: String
    /// The flags given.
    public let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    public var description: String { "SecAccessControl(\(protection), flags 0x\(String(flags.rawValue, radix: 16)))" }
}

/// Makes an access control object. `protection` must be one of the
/// `kSecAttrAccessible...` constants; anything else returns nil with an
/// `errSecParam` error, as on Apple's platforms. The object can be made and
/// inspected, but the `SecItem...` functions refuse it with `errSecUnimplemented`.
public func SecAccessControlCreateWithFlags(_ allocator: CFAllocator?, _ protection: Any, _ flags: SecAccessControlCreateFlags,
                                            _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl? {
    guard let string = protection as? String, Accessibility(rawValue: string) != nil else {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(SecStatus.param), userInfo: [
            NSLocalizedDescriptionKey: "SecAccessControlCreateWithFlags: the protection must be a kSecAttrAccessible... constant, not \(ParsedQuery.typeName(protection))",
        ]))
        return nil
    }
    return SecAccessControl(protection: string, flags: flags)
}

#endif
