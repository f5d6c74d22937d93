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
struct ParsedQuery {
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
    /// nil: one match (the default); otherwise the most to return.
    var limit: Int?

    /// Validates `dictionary` for `operation`. `itemClass` is given for the
    /// attributes of an update, which may not name a class themselves.
    /// - Throws: ``KeychainError/invalidParameter(operation:problem:)`` (-50) for a
    ///   missing class or a wrong value type, ``KeychainError/noSuchAttribute(operation:key:itemClass:)``,
    ///   ``KeychainError/unimplemented(feature:)``.
    init(_ dictionary: [String: Any], for operation: Operation, itemClass given: ItemClass? = nil) throws {
        let op = operation.rawValue
        func param(_ problem: String) -> KeychainError { .invalidParameter(operation: op, problem: problem) }
        if let given {
            if dictionary[SecKey.class] != nil {
                throw param("kSecClass cannot be changed by an update; it belongs in the query only")
            }
            itemClass = given
        } else {
            guard let raw = dictionary[SecKey.class] else {
                throw param("the dictionary has no kSecClass. Add kSecClass as String: kSecClassGenericPassword (or kSecClassInternetPassword)")
            }
            guard let string = raw as? String else { throw param("kSecClass must be a string constant such as kSecClassGenericPassword, not a \(Self.typeName(raw))") }
            guard let cls = ItemClass(rawValue: string) else {
                if ["keys", "cert", "idnt"].contains(string) { throw KeychainError.unimplemented(feature: "the item class \"\(string)\" (keys, certificates, identities)") }
                throw param("\"\(string)\" is not an item class; use kSecClassGenericPassword or kSecClassInternetPassword")
            }
            itemClass = cls
        }
        if dictionary.isEmpty { throw param("the attributes to update are empty") }

        let types = itemClass.attributeTypes
        let otherClassTypes = ItemClass.allCases.filter { $0 != itemClass }.flatMap { $0.attributeTypes.keys }
        for key in dictionary.keys.sorted() where key != SecKey.class {
            guard let value = dictionary[key] else { continue }
            let name = SecKey.name(key)
            func bool() throws -> Bool {
                guard let b = AttributeValue.bool(value) else { throw param("\(name) must be a Bool, not a \(Self.typeName(value))") }
                return b
            }
            func notHere(_ why: String) -> KeychainError { param("\(name) is not allowed here: \(why)") }
            switch key {
            case SecKey.accessGroup:
                if operation == .updateAttributes {
                    throw param("an update cannot change kSecAttrAccessGroup. Move the item instead: read it (SecItemCopyMatching), add a copy in the new group, and delete the original only after that add succeeded")
                }
                guard let group = value as? String else { throw param("\(name) must be a string, not a \(Self.typeName(value))") }
                accessGroup = group
            case SecKey.accessible:
                guard let string = value as? String, let a = Accessibility(rawValue: string) else {
                    throw param("\(name) must be one of the kSecAttrAccessible... constants, not \(Self.typeName(value)) \(Self.shortDescription(value))")
                }
                accessibility = a
            case SecKey.synchronizable:
                if let string = value as? String, string == SecKey.synchronizableAny {
                    guard operation.isSearch else { throw notHere("kSecAttrSynchronizableAny is for searches; an item is either synchronizable or not") }
                    sync = .any
                } else {
                    guard let b = AttributeValue.bool(value) else {
                        throw param("\(name) must be a Bool or kSecAttrSynchronizableAny, not a \(Self.typeName(value))")
                    }
                    sync = b ? .yes : .no
                }
                syncGiven = true
            case SecKey.valueData:
                guard operation == .add || operation == .updateAttributes else {
                    throw notHere("a search cannot match on an item's value; remove kSecValueData from the query")
                }
                guard let data = value as? Data else { throw param("\(name) must be Data, not a \(Self.typeName(value))") }
                self.value = data
            case SecKey.returnData, SecKey.returnAttributes:
                guard operation == .add || operation == .copyMatching else { throw notHere("only SecItemAdd and SecItemCopyMatching return results") }
                if key == SecKey.returnData { returnData = try bool() } else { returnAttributes = try bool() }
            case SecKey.returnRef, SecKey.returnPersistentRef:
                if try bool() { throw KeychainError.unimplemented(feature: "\(name) (item references)") }
            case SecKey.valueRef, SecKey.valuePersistentRef, SecKey.accessControl, SecKey.useAuthenticationContext, SecKey.useAuthenticationUI:
                throw KeychainError.unimplemented(feature: name)
            case SecKey.matchLimit:
                guard operation == .copyMatching else { throw notHere("\(op) acts on every matching item; kSecMatchLimit is for SecItemCopyMatching") }
                if let string = value as? String, string == SecKey.matchLimitOne {
                    limit = nil
                } else if let string = value as? String, string == SecKey.matchLimitAll {
                    limit = Int.max
                } else if case let .int(n)? = AttributeValue(value, as: .int), n >= 1 {
                    limit = n == 1 ? nil : n
                } else {
                    throw param("\(name) must be kSecMatchLimitOne, kSecMatchLimitAll or a positive number, not \(Self.typeName(value)) \(Self.shortDescription(value))")
                }
            case SecKey.useDataProtectionKeychain:
                guard operation != .updateAttributes else { throw notHere("it chooses the keychain; put it in the query") }
                useDataProtectionKeychain = try bool()
            default:
                guard let kind = types[key] else {
                    if otherClassTypes.contains(key) { throw KeychainError.noSuchAttribute(operation: op, key: key, itemClass: itemClass) }
                    throw param("unknown key \(name); the emulator accepts the generic and internet password attributes, kSecValueData, kSecReturn..., kSecMatchLimit and kSecUseDataProtectionKeychain")
                }
                if (key == SecKey.creationDate || key == SecKey.modificationDate) && !operation.isSearch {
                    throw notHere("the creation and modification dates are set by the keychain")
                }
                guard let typed = AttributeValue(value, as: kind) else {
                    throw param("\(name) must be a \(kind.rawValue), not a \(Self.typeName(value))")
                }
                attributes[key] = typed
            }
        }
    }

    static func typeName(_ value: Any) -> String {
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
    static func shortDescription(_ value: Any) -> String {
        if let s = value as? String, s.count <= 40 { return "\"\(s)\"" }
        if let n = value as? Int { return String(n) }
        return ""
    }

    /// The search for messages: class, group and attributes; data only by size.
    var summary: String {
        var parts = [itemClass.description]
        if let accessGroup { parts.append("access group \"\(accessGroup)\"") } else { parts.append("any access group of the caller") }
        for key in attributes.keys.sorted() { parts.append("\(SecKey.names[key] ?? key) \(attributes[key].map(\.redacted) ?? "")") }
        if let accessibility { parts.append(accessibility.constantName) }
        switch sync {
        case .no: parts.append(syncGiven ? "not synchronizable" : "not synchronizable (no kSecAttrSynchronizable: synchronizable items are excluded)")
        case .yes: parts.append("synchronizable")
        case .any: parts.append("synchronizable or not")
        }
        return parts.joined(separator: ", ")
    }
}
