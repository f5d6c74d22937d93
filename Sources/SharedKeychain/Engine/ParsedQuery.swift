import Foundation

/// The four operations, named as Apple's functions for messages.
enum Operation: String {
    case add = "SecItemAdd"
    case copyMatching = "SecItemCopyMatching"
    case update = "SecItemUpdate"
    case updateAttributes = "SecItemUpdate (attributes to update)"
    case delete = "SecItemDelete"

    var isSearch: Bool { self == .copyMatching || self == .update || self == .delete }
}

/// Which items a search sees by their sync flag: absent or false is ``no``.
enum SyncFilter: Hashable {
    case no, yes, any

    func admits(_ synchronizable: Bool) -> Bool {
        switch self {
        case .no: return !synchronizable
        case .yes: return synchronizable
        case .any: return true
        }
    }
}

/// A validated query, attribute or update dictionary.
package struct ParsedQuery {
    var itemClass: ItemClass
    var attributes: [String: AttributeValue] = [:]
    var accessGroup: String?
    var sync: SyncFilter = .no
    var syncGiven = false
    var accessibility: Accessibility?
    var useDataProtectionKeychain = false
    var value: Data?
    var returnData = false
    var returnAttributes = false
    /// `kSecReturnPersistentRef`.
    var returnPersistentRef = false
    /// `kSecValuePersistentRef` in a search: the item it names.
    var persistentRef: PersistentReference?
    /// The query's kSecClass differs from its reference's class: it matches nothing.
    var referenceClassMismatch = false
    /// nil: one match (the default); otherwise the most to return.
    var limit: Int?
    // Protected items (ParsedQuery+Authentication.swift).
    var accessPolicy: AccessPolicy?
    var authenticationContext: (any AuthenticationContextValue)?
    var authenticationUI: AuthenticationUI = .allow

    package static func typeName(_ value: Any) -> String {
        switch value {
        case is Bool: return "Bool"
        case is String: return "String"
        case is Data: return "Data"
        case is Int, is NSNumber: return "number"
        case is Date: return "Date"
        default: return String(describing: type(of: value))
        }
    }

    /// A value for a message, only when it cannot be a secret (not data, short).
    package static func shortDescription(_ value: Any) -> String {
        if let s = value as? String, s.count <= 40 { return "\"\(s)\"" }
        if let n = value as? Int { return String(n) }
        return ""
    }

    /// The search for messages: class, group and attributes; data only by size.
    var summary: String {
        var parts = [itemClass.description]
        if let accessGroup { parts.append("access group \"\(accessGroup)\"") } else { parts.append("any access group of the caller") }
        for key in attributes.keys.sorted() { parts.append("\(RawKey.names[key] ?? key) \(attributes[key].map(\.redacted) ?? "")") }
        if let accessibility { parts.append(accessibility.constantName) }
        switch sync {
        case .no: parts.append(syncGiven ? "not synchronizable" : "not synchronizable (no kSecAttrSynchronizable: synchronizable items are excluded)")
        case .yes: parts.append("synchronizable")
        case .any: parts.append("synchronizable or not")
        }
        return parts.joined(separator: ", ")
    }
}
