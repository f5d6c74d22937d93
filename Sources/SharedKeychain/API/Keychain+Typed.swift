import Foundation

/// The typed layer: values are `Data`, failures are ``KeychainError`` (its
/// ``KeychainError/status`` is the `OSStatus` Apple would return).
extension Keychain {
    /// Adds `value` as the item `key` names.
    /// - Throws: ``KeychainError/duplicateItem(item:)`` when it exists; see ``add(_:)`` for the rest.
    public func add(_ value: Data, for key: some KeychainItemKey, accessibility: Accessibility = .whenUnlocked) throws {
        var attributes = key.query
        attributes[RawKey.valueData] = value
        attributes[RawKey.accessible] = accessibility.rawValue
        try add(attributes)
    }

    /// The value of the item `key` names.
    /// - Throws: ``KeychainError/itemNotFound(query:)`` when there is none.
    public func read(_ key: some KeychainItemKey) throws -> Data {
        var query = key.query
        query[RawKey.returnData] = true
        query[RawKey.matchLimit] = RawKey.matchLimitOne
        return try copyMatching(query) as? Data ?? Data()
    }

    /// The value of the item `key` names, nil when there is none; other failures throw.
    public func readIfPresent(_ key: some KeychainItemKey) throws -> Data? {
        do {
            return try read(key)
        } catch let error as KeychainError where error.status == SecStatus.itemNotFound {
            if case .missingEntitlement = error { throw error }
            return nil
        }
    }

    /// Replaces the value of the item `key` names.
    /// - Throws: ``KeychainError/itemNotFound(query:)`` when there is none.
    public func update(_ key: some KeychainItemKey, to value: Data) throws {
        try update(key.query, with: [RawKey.valueData: value])
    }

    /// Adds the item, or updates its value when it exists (the add-or-update pattern of Apple's keychain samples).
    /// An existing item keeps its accessibility.
    public func save(_ value: Data, for key: some KeychainItemKey, accessibility: Accessibility = .whenUnlocked) throws {
        do {
            try add(value, for: key, accessibility: accessibility)
        } catch let error as KeychainError where error.status == SecStatus.duplicateItem {
            try update(key, to: value)
        }
    }

    /// Deletes the item `key` names; false when there was none.
    @discardableResult
    public func delete(_ key: some KeychainItemKey) throws -> Bool {
        do {
            return try delete(key.query) > 0
        } catch let error as KeychainError where error.status == SecStatus.itemNotFound {
            if case .missingEntitlement = error { throw error }
            return false
        }
    }

    /// Moves an item to another access group the way Apple's documentation prescribes (an update
    /// cannot change the group): read it, add a copy in `group`, and delete the
    /// original only after that add succeeded. A copy already there is kept.
    /// If the add fails, the original is untouched.
    public func move(_ key: GenericPassword, toAccessGroup group: String, accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly) throws {
        // Pin the source to the group it is actually in: a delete by a group-less key
        // would search every group of the caller and take the new copy with it.
        var source = key
        var lookup = key.query
        lookup[RawKey.returnAttributes] = true
        lookup[RawKey.returnData] = true
        let found = try copyMatching(lookup) as? [String: Any]
        let value = found?[RawKey.valueData] as? Data ?? Data()
        source.accessGroup = found?[RawKey.accessGroup] as? String ?? key.accessGroup
        if source.accessGroup.map({ $0.isExactly(group) }) == true { return }
        var target = key
        target.accessGroup = group
        do {
            try add(value, for: target, accessibility: accessibility)
        } catch let error as KeychainError where error.status == SecStatus.duplicateItem {
            // The copy exists already (a previous move stopped before its delete).
        }
        try delete(source.query)
    }
}
