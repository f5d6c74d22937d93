import Foundation

/// Which of macOS's two keychains an item lives in. iOS has only the data
/// protection keychain; in the macOS mode a call goes to the file-based one unless
/// it sets `kSecUseDataProtectionKeychain` or `kSecAttrSynchronizable: true`.
enum KeychainKind: String, Codable, Sendable, Hashable {
    case dataProtection
    case fileBased
}

/// An item as the store keeps it. Its value is never part of a description.
struct StoredItem: Codable, Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    var itemClass: ItemClass
    var kind: KeychainKind
    /// The item's access group; empty in the file-based keychain, which has none.
    var accessGroup: String
    var synchronizable: Bool
    var accessibility: Accessibility
    /// Every attribute, primary-key attributes always present (empty string or 0).
    var attributes: [String: AttributeValue]
    var value: Data?
    /// `kSecAttrAccessControl`: the authentication reading the value needs (nil: none).
    var accessPolicy: AccessPolicy? = nil
    /// The identifier of its persistent reference (PersistentReference.swift), given
    /// when it is added; nil only in a file written before references existed, until
    /// the next change to the file gives it one.
    var persistentID: Data? = nil

    /// Its persistent reference, once it has an identifier.
    var persistentReference: Data? {
        persistentID.map { PersistentReference(itemClass: itemClass, identifier: $0).data }
    }

    /// What makes two items the same item.
    struct PrimaryKey: Hashable {
        let itemClass: ItemClass
        let kind: KeychainKind
        let accessGroup: ExactString
        let synchronizable: Bool
        let values: [AttributeValue?]
    }

    var primaryKey: PrimaryKey {
        PrimaryKey(itemClass: itemClass, kind: kind, accessGroup: ExactString(accessGroup), synchronizable: synchronizable,
                   values: itemClass.primaryKeyAttributes.map { attributes[$0] })
    }

    /// Fills absent primary-key attributes with Apple's defaults (empty, 0).
    mutating func normalizePrimaryKey() {
        for key in itemClass.primaryKeyAttributes where attributes[key] == nil {
            switch itemClass.attributeTypes[key] {
            case .int?: attributes[key] = .int(0)
            case .data?: attributes[key] = .data(Data())
            default: attributes[key] = .string("")
            }
        }
    }

    /// The attribute dictionary handed back for `kSecReturnAttributes`.
    func attributeDictionary(includingData: Bool, includingReference: Bool = false) -> [String: Any] {
        var out: [String: Any] = [RawKey.class: itemClass.rawValue]
        for (key, value) in attributes { out[key] = value.object }
        if kind == .dataProtection { out[RawKey.accessGroup] = accessGroup }
        out[RawKey.accessible] = accessibility.rawValue
        out[RawKey.synchronizable] = synchronizable
        if let accessPolicy { out[RawKey.accessControl] = AccessControlBridge.object(for: accessPolicy) }
        if includingData { out[RawKey.valueData] = value ?? Data() }
        if includingReference, let reference = persistentReference { out[RawKey.valuePersistentRef] = reference }
        return out
    }

    /// Class, group and primary key, for messages. Never the value.
    var summary: String {
        var parts = [itemClass.description]
        parts.append(kind == .fileBased ? "file-based keychain" : "access group \"\(accessGroup)\"")
        for key in itemClass.primaryKeyAttributes {
            if let value = attributes[key], value != .string(""), value != .int(0), value != .data(Data()) {
                parts.append("\(RawKey.names[key] ?? key) \(value.redacted)")
            }
        }
        if synchronizable { parts.append("synchronizable") }
        return parts.joined(separator: ", ")
    }

    var description: String {
        "StoredItem(\(summary), \(accessibility), value: \(value.map { "<\($0.count) bytes, redacted>" } ?? "none"))"
    }

    // `dump` and the debugger's child listing would otherwise print the value.
    var customMirror: Mirror { Mirror(self, children: ["summary": summary], displayStyle: .struct) }
}

/// The content of a keychain file.
struct KeychainFileContent: Codable, Sendable {
    static let currentFormat = 1
    var format: Int = currentFormat
    var items: [StoredItem] = []
}
