import Foundation

/// Reading a dictionary into a ``ParsedQuery``, one named step per kind of key:
/// the class first (every other key is checked against it), then each key in
/// sorted order (so the first problem reported does not depend on hashing).
extension ParsedQuery {
    /// Validates `dictionary` for `operation`. `itemClass` is given for the
    /// attributes of an update, which may not name a class themselves.
    /// - Throws: ``KeychainError/invalidParameter(operation:problem:)`` (-50) for a
    ///   missing class or a wrong value type, ``KeychainError/noSuchAttribute(operation:key:itemClass:)``,
    ///   ``KeychainError/unimplemented(feature:)``.
    init(_ dictionary: [String: Any], for operation: Operation, itemClass given: ItemClass? = nil) throws {
        // A search by persistent reference needs no kSecClass: the reference names it.
        var dictionary = dictionary
        if given == nil, dictionary[RawKey.class] == nil, operation.isSearch, let reference = dictionary[RawKey.valuePersistentRef] {
            dictionary[RawKey.class] = try PersistentReference(reference, operation: operation).itemClass.rawValue
        }
        itemClass = try Self.itemClass(of: dictionary, given: given, for: operation)
        if dictionary.isEmpty { throw KeyProblem(operation, RawKey.class).parameter("the attributes to update are empty") }
        for key in dictionary.keys.sorted() where key != RawKey.class {
            guard let value = dictionary[key] else { continue }
            try read(key, value, for: operation)
        }
        try checkAuthenticationKeys(for: operation)
    }

    /// The refusals of one key, worded alike: what must change, for which call.
    struct KeyProblem {
        let operation: Operation
        /// The key's constant name (`kSecAttrAccount`...), for messages.
        let name: String

        init(_ operation: Operation, _ key: String) {
            self.operation = operation
            name = RawKey.name(key)
        }

        func parameter(_ problem: String) -> KeychainError { .invalidParameter(operation: operation.rawValue, problem: problem) }
        func notHere(_ why: String) -> KeychainError { parameter("\(name) is not allowed here: \(why)") }
        func wrongType(_ expected: String, _ value: Any) -> KeychainError { parameter("\(name) must be \(expected), not a \(ParsedQuery.typeName(value))") }

        func bool(_ value: Any) throws -> Bool {
            guard let b = AttributeValue.bool(value) else { throw wrongType("a Bool", value) }
            return b
        }
    }

    /// The item class: `given` (an update's attributes, which may not name one), or
    /// the dictionary's kSecClass.
    private static func itemClass(of dictionary: [String: Any], given: ItemClass?, for operation: Operation) throws -> ItemClass {
        let problem = KeyProblem(operation, RawKey.class)
        if let given {
            if dictionary[RawKey.class] != nil {
                throw problem.parameter("kSecClass cannot be changed by an update; it belongs in the query only")
            }
            return given
        }
        guard let raw = dictionary[RawKey.class] else {
            throw problem.parameter("the dictionary has no kSecClass. Add kSecClass as String: kSecClassGenericPassword (or kSecClassInternetPassword, kSecClassKey, kSecClassCertificate, kSecClassIdentity)")
        }
        guard let string = raw as? String else { throw problem.parameter("kSecClass must be a string constant such as kSecClassGenericPassword, not a \(typeName(raw))") }
        guard let cls = ItemClass(rawValue: string) else {
            throw problem.parameter("\"\(string)\" is not an item class; use kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate or kSecClassIdentity")
        }
        return cls
    }

    /// Reads one key other than kSecClass.
    private mutating func read(_ key: String, _ value: Any, for operation: Operation) throws {
        let problem = KeyProblem(operation, key)
        switch key {
        case RawKey.accessGroup:
            if operation == .updateAttributes {
                throw problem.parameter("an update cannot change kSecAttrAccessGroup. Move the item instead: read it (SecItemCopyMatching), add a copy in the new group, and delete the original only after that add succeeded")
            }
            guard let group = value as? String else { throw problem.wrongType("a string", value) }
            accessGroup = group
        case RawKey.accessible:
            guard let string = value as? String, let a = Accessibility(rawValue: string) else {
                throw problem.parameter("\(problem.name) must be one of the kSecAttrAccessible... constants, not \(Self.typeName(value)) \(Self.shortDescription(value))")
            }
            accessibility = a
        case RawKey.synchronizable:
            sync = try Self.syncFilter(value, problem)
            syncGiven = true
        case RawKey.valueData:
            guard operation == .add || operation == .updateAttributes else {
                throw problem.notHere("a search cannot match on an item's value; remove kSecValueData from the query")
            }
            guard let data = value as? Data else { throw problem.wrongType("Data", value) }
            self.value = data
        case RawKey.returnData, RawKey.returnAttributes:
            guard operation == .add || operation == .copyMatching else { throw problem.notHere("only SecItemAdd and SecItemCopyMatching return results") }
            if key == RawKey.returnData { returnData = try problem.bool(value) } else { returnAttributes = try problem.bool(value) }
        case RawKey.returnRef:
            if try problem.bool(value) { throw KeychainError.unimplemented(feature: "\(problem.name) (SecKey, SecCertificate and SecIdentity objects); use kSecReturnData or kSecReturnPersistentRef") }
        case RawKey.returnPersistentRef:
            guard operation == .add || operation == .copyMatching else { throw problem.notHere("only SecItemAdd and SecItemCopyMatching return results") }
            returnPersistentRef = try problem.bool(value)
        case RawKey.valuePersistentRef:
            guard operation.isSearch else {
                throw problem.notHere("a persistent reference names an existing item: use it in the query of SecItemCopyMatching, SecItemUpdate or SecItemDelete")
            }
            let reference = try PersistentReference(value, operation: operation)
            persistentRef = reference
            referenceClassMismatch = reference.itemClass != itemClass
        case RawKey.accessControl, RawKey.useAuthenticationContext, RawKey.useAuthenticationUI:
            try readAuthenticationKey(key, value, problem)
        case RawKey.useOperationPrompt:
            // The prompt's text (deprecated for LAContext.localizedReason); shown nowhere here.
            guard value is String else { throw problem.wrongType("String", value) }
        case RawKey.valueRef, RawKey.tokenID, RawKey.privateKeyAttributes, RawKey.publicKeyAttributes:
            throw KeychainError.unimplemented(feature: "\(problem.name) (SecKey, SecCertificate and SecIdentity objects, Secure Enclave keys); store keys and certificates as kSecValueData")
        case RawKey.matchLimit:
            limit = try Self.matchLimit(value, problem)
        case RawKey.useDataProtectionKeychain:
            guard operation != .updateAttributes else { throw problem.notHere("it chooses the keychain; put it in the query") }
            useDataProtectionKeychain = try problem.bool(value)
        default:
            attributes[key] = try attribute(key, value, problem)
        }
    }

    /// kSecAttrSynchronizable: a Bool, or kSecAttrSynchronizableAny in a search.
    private static func syncFilter(_ value: Any, _ problem: KeyProblem) throws -> SyncFilter {
        if let string = value as? String, string == RawKey.synchronizableAny {
            guard problem.operation.isSearch else { throw problem.notHere("kSecAttrSynchronizableAny is for searches; an item is either synchronizable or not") }
            return .any
        }
        guard let b = AttributeValue.bool(value) else { throw problem.wrongType("a Bool or kSecAttrSynchronizableAny", value) }
        return b ? .yes : .no
    }

    /// kSecMatchLimit (SecItemCopyMatching only): nil for one match, else the most to return.
    private static func matchLimit(_ value: Any, _ problem: KeyProblem) throws -> Int? {
        guard problem.operation == .copyMatching else {
            throw problem.notHere("\(problem.operation.rawValue) acts on every matching item; kSecMatchLimit is for SecItemCopyMatching")
        }
        if let string = value as? String, string == RawKey.matchLimitOne { return nil }
        if let string = value as? String, string == RawKey.matchLimitAll { return Int.max }
        if case let .int(n)? = AttributeValue(value, as: .int), n >= 1 { return n == 1 ? nil : n }
        throw problem.parameter("\(problem.name) must be kSecMatchLimitOne, kSecMatchLimitAll or a positive number, not \(typeName(value)) \(shortDescription(value))")
    }

    /// An item attribute of this class, typed; another class's attribute and an
    /// unknown key are refused with what the emulator accepts.
    private func attribute(_ key: String, _ value: Any, _ problem: KeyProblem) throws -> AttributeValue {
        guard let kind = itemClass.attributeTypes[key] else {
            let otherClasses = ItemClass.allCases.filter { $0 != itemClass }
            if otherClasses.contains(where: { $0.attributeTypes[key] != nil }) {
                throw KeychainError.noSuchAttribute(operation: problem.operation.rawValue, key: key, itemClass: itemClass)
            }
            throw problem.parameter("unknown key \(problem.name); the emulator accepts the attributes Apple lists for \(itemClass), kSecValueData, kSecReturn..., kSecMatchLimit and kSecUseDataProtectionKeychain")
        }
        if (key == RawKey.creationDate || key == RawKey.modificationDate) && !problem.operation.isSearch {
            throw problem.notHere("the creation and modification dates are set by the keychain")
        }
        guard let typed = AttributeValue(value, as: kind) else { throw problem.wrongType("a \(kind.rawValue)", value) }
        return typed
    }
}
