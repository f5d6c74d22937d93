import Foundation

/// One file of a device's keychain: the items of one access group, or those of
/// macOS's file-based keychain (which has no access groups).
struct KeychainPart: Hashable, Sendable {
    /// The access group's directory name (``AccessGroupDirectoryName``); nil for
    /// the file-based keychain.
    let directoryName: String?

    /// macOS's file-based keychain.
    static let fileBased = KeychainPart(directoryName: nil)

    /// The items of access group `group` (exact: two spellings are two parts).
    static func group(_ group: String) -> KeychainPart {
        KeychainPart(directoryName: AccessGroupDirectoryName.encode(group))
    }

    /// The part `item` belongs in.
    static func of(_ item: StoredItem) -> KeychainPart {
        item.kind == .fileBased ? .fileBased : .group(item.accessGroup)
    }

    /// For messages.
    var description: String { directoryName.map { "access group directory \"\($0)\"" } ?? "the file-based keychain" }
}
