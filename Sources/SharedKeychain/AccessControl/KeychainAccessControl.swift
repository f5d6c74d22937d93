import Foundation

/// An object the engine recognises as a `kSecAttrAccessControl` value.
package protocol AccessControlValue {
    var accessPolicy: AccessPolicy { get }
}

/// The `kSecAttrAccessControl` value handed back with an item's attributes.
enum AccessControlBridge {
    static func object(for policy: AccessPolicy) -> Any {
        #if !canImport(Darwin)
        return KeychainAccessControl(policy: policy)
        #else
        return policy.flagNames
        #endif
    }
}

#if !canImport(Darwin)

/// An item's access control as the keychain hands it back: a data protection class
/// and the authentication reading the item demands. `import Security` names it
/// `SecAccessControl` (made by `SecAccessControlCreateWithFlags`); it is declared
/// here because the keychain makes one for every protected item it returns, and a
/// module cannot make an instance of a type declared in a module above it.
public final class KeychainAccessControl: Hashable, Sendable, CustomStringConvertible, AccessControlValue {
    package let accessPolicy: AccessPolicy

    package init(policy: AccessPolicy) {
        var unbound = policy
        // The binding to an enrolment is the item's, not the object's.
        unbound.boundEnrollment = nil
        accessPolicy = unbound
    }

    /// The data protection class (`kSecAttrAccessible...` raw value) it was created with.
    public var protection: CFString { accessPolicy.protection.rawValue }

    public static func == (a: KeychainAccessControl, b: KeychainAccessControl) -> Bool { a.accessPolicy == b.accessPolicy }
    public func hash(into hasher: inout Hasher) { hasher.combine(accessPolicy) }

    public var description: String { "<SecAccessControl \(accessPolicy.protection) \(accessPolicy.flagNames)>" }
}

#endif
