import Foundation

/// `kSecUseAuthenticationUI`: whether a call may prompt.
enum AuthenticationUI: Sendable, Hashable {
    case allow, fail, skip
}

/// What the keychain needs of an `LAContext` passed as `kSecUseAuthenticationContext`.
package protocol AuthenticationContextValue: AnyObject, Sendable {
    /// The context's settings and what it has proved so far.
    var keychainView: AuthenticationContextView { get }
    /// Records a successful authentication the keychain ran on the context, so later
    /// calls on the same device, in the same state, reuse it.
    func recordKeychainAuthentication(_ proof: AuthenticationProof)
}

package struct AuthenticationContextView: Sendable {
    var reason: String
    var interactionNotAllowed: Bool
    var isInvalidated: Bool
    /// What an earlier evaluation proved, where and in which state; nil before any.
    var proved: AuthenticationProof?

    package init(reason: String, interactionNotAllowed: Bool, isInvalidated: Bool, proved: AuthenticationProof?) {
        self.reason = reason
        self.interactionNotAllowed = interactionNotAllowed
        self.isInvalidated = isInvalidated
        self.proved = proved
    }
}

extension ParsedQuery {
    /// Reads `kSecAttrAccessControl`, `kSecUseAuthenticationContext` or `kSecUseAuthenticationUI`.
    mutating func readAuthenticationKey(_ key: String, _ value: Any, _ problem: KeyProblem) throws {
        switch key {
        case RawKey.accessControl:
            guard problem.operation == .add else {
                throw problem.notHere(problem.operation == .updateAttributes
                    ? "an item's access control cannot be changed by an update; delete the item and add it again with the new SecAccessControl"
                    : "a search cannot match on access control; search by the item's other attributes")
            }
            guard let control = value as? AccessControlValue else {
                throw problem.wrongType("a SecAccessControl from SecAccessControlCreateWithFlags", value)
            }
            accessPolicy = control.accessPolicy
        case RawKey.useAuthenticationContext:
            guard problem.operation != .updateAttributes else { throw problem.notHere("it belongs in the query, not in the attributes to update") }
            guard let context = value as? AuthenticationContextValue else { throw problem.wrongType("an LAContext", value) }
            authenticationContext = context
        default:
            guard problem.operation != .updateAttributes else { throw problem.notHere("it belongs in the query, not in the attributes to update") }
            switch value as? String {
            case RawKey.useAuthenticationUIAllow?: authenticationUI = .allow
            case RawKey.useAuthenticationUIFail?: authenticationUI = .fail
            case RawKey.useAuthenticationUISkip?:
                guard problem.operation == .copyMatching else { throw problem.notHere("kSecUseAuthenticationUISkip is for SecItemCopyMatching only") }
                authenticationUI = .skip
            default:
                throw problem.parameter("\(problem.name) must be kSecUseAuthenticationUIAllow, kSecUseAuthenticationUIFail or kSecUseAuthenticationUISkip, not \(Self.typeName(value)) \(Self.shortDescription(value))")
            }
        }
    }

    /// The checks that span keys: an access control carries its own protection class.
    func checkAuthenticationKeys(for operation: Operation) throws {
        if accessPolicy != nil && accessibility != nil {
            throw KeyProblem(operation, RawKey.accessControl).parameter(
                "kSecAttrAccessControl and kSecAttrAccessible cannot both be given: the access control already holds the protection class. Remove kSecAttrAccessible")
        }
    }
}
