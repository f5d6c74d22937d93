import AppGroupContainer
import Foundation

/// The SecItem rules applied to the content of a keychain file: pure, no I/O.
/// ``Keychain`` loads the file, runs one of these under the right lock and saves.
struct KeychainEngine {
    let groups: AccessGroups
    let state: DeviceState
    let now: Date
    /// Reads the simulated sensor, for protected items only (KeychainEngine+Protection.swift,
    /// Keychain+Authentication.swift): a call that touches no protected item never reads
    /// the sensor's file, so it costs nothing and a damaged sensor cannot fail it.
    var sensor: () throws -> SimulatedBiometry = { .enrolledFaceID }

    // MARK: Add

    /// Adds the item `query` describes and returns it.
    func add(_ query: ParsedQuery, to content: inout KeychainFileContent) throws -> StoredItem {
        let kind = groups.kind(of: query)
        let accessibility = query.accessibility ?? query.accessPolicy?.protection ?? .whenUnlocked
        try checkAccessibilityChoice(accessibility, synchronizable: query.sync == .yes, operation: .add)
        var item = StoredItem(itemClass: query.itemClass, kind: kind,
                              accessGroup: kind == .dataProtection ? try groups.groupForAdd(query) : "",
                              synchronizable: query.sync == .yes, accessibility: accessibility,
                              attributes: query.attributes, value: query.value)
        item.accessPolicy = try boundAccessPolicy(query)
        item.normalizePrimaryKey()
        item.persistentID = PersistentReference.newIdentifier()
        item.attributes[RawKey.creationDate] = .date(now)
        item.attributes[RawKey.modificationDate] = .date(now)
        try checkAvailable(item)
        let key = item.primaryKey
        if content.items.contains(where: { $0.primaryKey == key }) {
            throw KeychainError.duplicateItem(item: item.summary)
        }
        content.items.append(item)
        return item
    }

    // MARK: Search

    /// Indices of the items `query` matches, in the order they were added.
    /// - Throws: -25300 when none, -25308 when one is locked away, -34018 for an unentitled group.
    func matches(_ query: ParsedQuery, in content: KeychainFileContent) throws -> [Int] {
        let kind = groups.kind(of: query)
        let searched = kind == .dataProtection ? try groups.groupsSearched(by: query) : []
        let found = content.items.indices.filter { index in
            let item = content.items[index]
            guard item.itemClass == query.itemClass, item.kind == kind, query.sync.admits(item.synchronizable) else { return false }
            // By reference: that item only, and only where the caller may look (an item
            // of a group it does not hold is not found, as securityd filters by group).
            if let reference = query.persistentRef {
                guard !query.referenceClassMismatch, let id = item.persistentID, id == reference.identifier else { return false }
            }
            if kind == .dataProtection && !searched.contains(ExactString(item.accessGroup)) { return false }
            if let accessibility = query.accessibility, accessibility != item.accessibility { return false }
            // AttributeValue compares strings by code units (ExactString).
            return query.attributes.allSatisfy { key, value in item.attributes[key] == value }
        }
        guard !found.isEmpty else { throw KeychainError.itemNotFound(query: query.summary) }
        for index in found { try checkAvailable(content.items[index]) }
        return found
    }

    /// What `SecItemCopyMatching` hands back for `items` (already matched).
    /// One return key alone gives that value (the data, the attributes, the persistent
    /// reference); several give a dictionary of them, as Apple's functions do.
    static func result(for items: [StoredItem], query: ParsedQuery) -> Any? {
        let kinds = [query.returnData, query.returnAttributes, query.returnPersistentRef].filter { $0 }.count
        guard kinds > 0, let first = items.first else { return nil }
        func one(_ item: StoredItem) -> Any {
            if kinds > 1 || query.returnAttributes {
                var out = query.returnAttributes ? item.attributeDictionary(includingData: query.returnData, includingReference: query.returnPersistentRef) : [:]
                if !query.returnAttributes {
                    if query.returnData { out[RawKey.valueData] = item.value ?? Data() }
                    if query.returnPersistentRef { out[RawKey.valuePersistentRef] = item.persistentReference ?? Data() }
                }
                return out
            }
            if query.returnPersistentRef { return item.persistentReference ?? Data() }
            return item.value ?? Data()
        }
        guard let limit = query.limit else { return one(first) }
        return items.prefix(limit).map(one)
    }

    /// Gives every item without a persistent identifier one (items of a file written
    /// before references existed); true when one was given.
    @discardableResult
    static func assignMissingIdentifiers(in content: inout KeychainFileContent) -> Bool {
        var changed = false
        for index in content.items.indices where content.items[index].persistentID == nil {
            content.items[index].persistentID = PersistentReference.newIdentifier()
            changed = true
        }
        return changed
    }

    // MARK: Update

    /// Applies `changes` to every item `query` matches.
    func update(_ query: ParsedQuery, with changes: ParsedQuery, in content: inout KeychainFileContent) throws {
        let indices = try matches(query, in: content)
        var updated = content.items
        for index in indices {
            var item = updated[index]
            for (key, value) in changes.attributes { item.attributes[key] = value }
            if let value = changes.value { item.value = value }
            if let accessibility = changes.accessibility { item.accessibility = accessibility }
            if changes.syncGiven { item.synchronizable = changes.sync == .yes }
            if changes.accessibility != nil || changes.syncGiven {
                try checkAccessibilityChoice(item.accessibility, synchronizable: item.synchronizable, operation: .update)
                try checkAvailable(item)
            }
            item.attributes[RawKey.modificationDate] = .date(now)
            updated[index] = item
        }
        var seen = Set<StoredItem.PrimaryKey>()
        for item in updated where !seen.insert(item.primaryKey).inserted {
            throw KeychainError.duplicateItem(item: item.summary + " (the update would give two items this primary key)")
        }
        content.items = updated
    }

    // MARK: Delete

    /// Removes every item `query` matches; returns how many.
    @discardableResult
    func delete(_ query: ParsedQuery, from content: inout KeychainFileContent) throws -> Int {
        let indices = Set(try matches(query, in: content))
        content.items = content.items.enumerated().filter { !indices.contains($0.offset) }.map(\.element)
        return indices.count
    }

    // MARK: Rules

    /// Sync with ThisDeviceOnly is -50 (nothing stored); the Always classes are
    /// flagged or refused; WhenPasscodeSet needs a passcode.
    func checkAccessibilityChoice(_ accessibility: Accessibility, synchronizable: Bool, operation: Operation) throws {
        if synchronizable && accessibility.isThisDeviceOnly {
            throw KeychainError.invalidParameter(operation: operation.rawValue,
                problem: "a synchronizable item cannot be \(accessibility): ThisDeviceOnly items never leave the device, so they cannot sync. Nothing was stored. Use kSecAttrAccessibleAfterFirstUnlock or kSecAttrAccessibleWhenUnlocked")
        }
        if accessibility.isDeprecated {
            if groups.behavior.refusesDeprecatedAccessibility {
                throw KeychainError.invalidParameter(operation: operation.rawValue,
                    problem: "\(accessibility) is deprecated since iOS 12 and refused in this mode; use kSecAttrAccessibleAfterFirstUnlock or kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly")
            }
            Diagnostics.warn("SharedKeychain \(operation.rawValue): \(accessibility) is deprecated since iOS 12; use kSecAttrAccessibleAfterFirstUnlock (background access) or kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly")
        }
        if accessibility == .whenPasscodeSetThisDeviceOnly && !state.isPasscodeSet {
            throw KeychainError.notAvailable(problem: "no item can be stored as \(accessibility) on a device without a passcode. Set a passcode on the simulated device (KeychainDevice.setPasscode(true)) or choose another class")
        }
    }

    /// The data protection keychain refuses items whose class key is unavailable.
    /// The file-based macOS keychain has no data protection classes.
    func checkAvailable(_ item: StoredItem) throws {
        guard item.kind == .dataProtection, !item.accessibility.isAvailable(in: state) else { return }
        throw KeychainError.interactionNotAllowed(item: item.summary, accessibility: item.accessibility, deviceState: state)
    }
}
