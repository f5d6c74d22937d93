import Foundation
import SharedKeychain

#if !canImport(Darwin)

/// Access control constants that dictate how a keychain item may be used, with
/// Apple's members and bit values (SecAccessControl.h).
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or the device passcode; biometry need not be available or enrolled.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Any enrolled finger (Touch ID) or the enrolled face (Face ID); survives re-enrolment.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// The fingers or face enrolled now; the item is invalidated when they change.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired companion device (not emulated: refused with errSecUnimplemented).
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    @available(*, deprecated, renamed: "companion")
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// At least one of the constraints must be satisfied.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Every constraint must be satisfied.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// Private key usage (Secure Enclave keys; not emulated: refused with errSecUnimplemented).
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application-supplied password (not emulated: refused with errSecUnimplemented).
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An access control object: a data protection class and the authentication an
/// item demands. Made by ``SecAccessControlCreateWithFlags(_:_:_:_:)``, stored with an
/// item under `kSecAttrAccessControl`, and handed back with its attributes.
///
/// The class itself is the keychain's (SharedKeychain's `KeychainAccessControl`),
/// which makes one for every protected item it returns.
public typealias SecAccessControl = KeychainAccessControl

extension SecAccessControl {
    /// The flags it was created with.
    public var flags: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: accessPolicy.flags) }
}

/// Creates an access control object, as Apple's function does: nil and an error
/// (`CFError`, here `NSError` in `NSOSStatusErrorDomain` with the status as its code)
/// for an invalid combination. The error is handed over retained, as Apple's is.
///
/// `protection` is Apple's `CFTypeRef`; it is `Any` here because Linux's `String`
/// constants are not objects (passing `kSecAttrAccessible...` compiles the same).
public func SecAccessControlCreateWithFlags(_ allocator: CFAllocator?, _ protection: Any, _ flags: SecAccessControlCreateFlags,
                                            _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl? {
    do {
        guard let raw = protection as? String, let accessibility = Accessibility(rawValue: raw) else {
            throw KeychainError.invalidParameter(operation: "SecAccessControlCreateWithFlags",
                problem: "protection must be one of the kSecAttrAccessible... constants, not \(ParsedQuery.typeName(protection)) \(ParsedQuery.shortDescription(protection))")
        }
        return SecAccessControl(policy: try AccessPolicy(flags: flags.rawValue, protection: accessibility))
    } catch let failure as KeychainError {
        let nsError = NSError(domain: "NSOSStatusErrorDomain", code: Int(failure.status),
                              userInfo: [NSLocalizedDescriptionKey: failure.description])
        error?.pointee = Unmanaged.passRetained(nsError)
        return nil
    } catch {
        return nil
    }
}

#endif
