import AppGroupContainer
import Foundation
import SharedKeychain

/// The Notes app's session token: the app keeps it in a shared keychain access
/// group (not in shared defaults, which are not encrypted), and the share
/// extension reads it before it shares. The token itself is never printed, only
/// its length.
enum SessionToken {
    /// Where the token is stored in its access group: one generic password.
    static func key(accessGroup: String) -> GenericPassword {
        GenericPassword(service: "session", account: "active-user", accessGroup: accessGroup)
    }

    /// The keychain of the role's identity, on the device beside its containers.
    static func keychain(_ identity: RoleIdentity) throws -> Keychain {
        Keychain(device: try KeychainDevice(root: identity.resolver.root), identity: identity.resolver.entitlements)
    }

    /// The access group to use: `--token-group`, else the identity's first
    /// keychain access group (what Keychain Sharing puts there).
    static func accessGroup(_ arguments: Arguments, _ identity: RoleIdentity) throws -> String {
        if let group = arguments.string("token-group") { return group }
        guard let first = identity.resolver.entitlements.keychainAccessGroups.first else {
            throw UsageError(message: "\(identity.resolver.entitlements.bundleIdentifier) has no keychain-access-groups: "
                + "pass --token-group, or add the Keychain Sharing capability to the target")
        }
        return first
    }

    /// The app, signed in: publishes `token` for its extensions.
    static func publish(_ token: String, arguments: Arguments, identity: RoleIdentity) throws {
        let group = try accessGroup(arguments, identity)
        // AfterFirstUnlockThisDeviceOnly: an extension running in the background
        // while the device is locked can still read it.
        try keychain(identity).save(Data(token.utf8), for: key(accessGroup: group), accessibility: .afterFirstUnlockThisDeviceOnly)
        Output.error("published a session token (\(token.utf8.count) bytes) in keychain access group \(group)")
    }

    /// The extension, before it shares: reads the token or fails with the reason.
    static func require(arguments: Arguments, identity: RoleIdentity) throws -> Int {
        let group = try accessGroup(arguments, identity)
        guard let token = try keychain(identity).readIfPresent(key(accessGroup: group)) else {
            throw SessionTokenMissing(group: group)
        }
        return token.count
    }
}

/// No token was published: the user has not signed in to the app yet.
struct SessionTokenMissing: Error, CustomStringConvertible {
    let group: String
    var description: String {
        "no session token in keychain access group \(group): open the app and sign in first (the app publishes it); nothing was shared"
    }
}
