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

    /// Moves an item to another access group (an update cannot change the group, so
    /// Apple's documentation prescribes reading it, adding a copy in the new group and
    /// deleting the original). Done here in one change under the device's keychain
    /// write lock: the new group's file is saved before the old group's, so a process
    /// never sees neither copy (one that holds both groups may, for that moment, see
    /// both), and the item keeps its persistent reference (`kSecReturnPersistentRef`). A copy already in `group`
    /// (made by hand, the documented way) is kept and the original deleted. A
    /// protected item needs the same authentication as an update.
    /// - Throws: ``KeychainError`` (`errSecItemNotFound` when there is no such item,
    ///   `errSecMissingEntitlement` for a group the caller does not hold).
    public func move(_ key: GenericPassword, toAccessGroup group: String, accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly) throws {
        let query = try ParsedQuery(key.query, for: .update)
        let groups = self.groups
        // The destination's file only when the identity holds it: otherwise the
        // check below refuses, after the item was looked for, as before.
        let destination = groups.ordered.contains { $0.isExactly(group) } ? [KeychainPart.group(group)] : []
        try modify(try groups.parts(for: query) + destination) { engine, content in
            let indices = try engine.matches(query, in: content)
            _ = try authorize(query, indices.map { content.items[$0] }, engine: engine, operation: .update)
            guard let index = indices.first else { return }
            var item = content.items[index]
            if item.accessGroup.isExactly(group) { return }
            try engine.groups.check(group)
            item.accessGroup = group
            item.accessibility = accessibility
            try engine.checkAccessibilityChoice(accessibility, synchronizable: item.synchronizable, operation: .update)
            try engine.checkAvailable(item)
            item.attributes[RawKey.modificationDate] = .date(engine.now)
            let moved = item.primaryKey
            if content.items.contains(where: { $0.primaryKey == moved }) {
                content.items.remove(at: index)  // the copy exists already (a move made by hand stopped before its delete)
            } else {
                content.items[index] = item
            }
        }
    }
}
