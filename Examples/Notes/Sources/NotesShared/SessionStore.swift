import Foundation
import Security // on Linux, AppGroupContainer's Security module

/// The signed-in session's token, in the keychain access group every Notes
/// target has: the app publishes it, the share extension reads it.
public enum SessionStore {
    private static var base: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "ai.systenics.notes.session",
            kSecAttrAccount as String: "current",
            kSecAttrAccessGroup as String: NotesGroup.keychainAccessGroup,
        ]
    }

    /// Stores `token`, replacing the one stored before (the app's side).
    public static func publish(token: String) throws {
        let value: [String: Any] = [
            kSecValueData as String: Data(token.utf8),
            // Extensions run in the background too, while the device may be locked.
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
        var status = SecItemAdd(base.merging(value) { $1 } as CFDictionary, nil)
        if status == errSecDuplicateItem {
            status = SecItemUpdate(base as CFDictionary, value as CFDictionary)
        }
        try check(status, "SecItemAdd")
    }

    /// The stored token; nil when nobody is signed in.
    public static func token() throws -> String? {
        var query = base
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try check(status, "SecItemCopyMatching")
        guard let data = result as? Data else {
            throw NotesError.keychain(operation: "SecItemCopyMatching", status: errSecDecode, message: "the item holds no data")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Removes the token (signing out); no error when there is none.
    public static func signOut() throws {
        let status = SecItemDelete(base as CFDictionary)
        if status != errSecItemNotFound { try check(status, "SecItemDelete") }
    }

    private static func check(_ status: OSStatus, _ operation: String) throws {
        guard status != errSecSuccess else { return }
        let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "unknown status"
        throw NotesError.keychain(operation: operation, status: status, message: message)
    }
}
