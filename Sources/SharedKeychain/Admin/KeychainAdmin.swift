import AppGroupContainer
import Foundation

/// What an administrator (the `appgroup keychain` commands) may know of a stored
/// item: its attributes and the size of its secret, never the secret itself.
package struct KeychainItemSummary: Sendable {
    /// `kSecClassGenericPassword` or `kSecClassInternetPassword`.
    package let itemClass: String
    /// `genp` or `inet`, as `kSecClass` spells it in a query.
    package let classCode: String
    /// The data protection keychain, or macOS's file-based one.
    package let keychain: String
    package let service: String?
    package let server: String?
    package let account: String
    /// Empty in the file-based keychain, which has no access groups.
    package let accessGroup: String
    /// The `kSecAttrAccessible...` constant's name.
    package let accessibility: String
    package let synchronizable: Bool
    /// The secret's size in bytes (0 for an item without data).
    package let valueBytes: Int
    /// How many attributes the item carries (the dates and primary key included).
    package let attributeCount: Int
    package let created: Date?
    package let modified: Date?
    /// The item's `kSecAttrAccessControl`; nil for an item without one.
    package let accessControl: KeychainAccessControlSummary?
}

/// What an item's access control demands, and whether it can still be opened.
package struct KeychainAccessControlSummary: Sendable {
    /// The `SecAccessControlCreateFlags` members, as Swift spells them without the dot
    /// (`biometryCurrentSet`, `userPresence`, `or`, `and`).
    package let flags: [String]
    /// The enrolment generation a `.biometryCurrentSet` item was bound to when added.
    package let boundEnrollment: Int?
    /// True when no authentication can open the item again: the enrolled biometry
    /// changed since a `.biometryCurrentSet` item was added (reads answer errSecItemNotFound).
    /// Nil when that could not be told: the sensor file could not be read.
    package let isInvalidated: Bool?
}

/// Which items an administrative delete removes: every given attribute must match
/// exactly (code units, as the keychain compares them); nil matches anything.
package struct KeychainItemFilter: Sendable {
    package var classCode: String?
    package var service: String?
    package var account: String?
    package var accessGroup: String?
    package var accessibility: String?
    package var synchronizable: Bool?

    /// A filter matching every item; set the attributes to narrow it.
    package init() {}

    /// True when no attribute is given (it would match every item).
    package var isEmpty: Bool {
        classCode == nil && service == nil && account == nil && accessGroup == nil && accessibility == nil && synchronizable == nil
    }
}

/// A simulated device's keychain seen from outside every app, as a device
/// administrator (or `simctl keychain`) sees it: every item of every identity,
/// without entitlement checks, and without ever handing out a secret.
extension KeychainDevice {
    /// Every item the device holds: the file-based keychain's, then each access
    /// group's (by directory name), each in file order.
    package func itemSummaries() throws -> [KeychainItemSummary] {
        try migrateLegacyKeychainIfNeeded()
        return try summaries(of: presentParts().flatMap { try load($0).items })
    }

    /// The items' summaries. The sensor is read only when an item's invalidation
    /// depends on it, so a damaged sensor file never hides unprotected items; with
    /// `tolerant`, one that cannot be read leaves the invalidation unknown (nil)
    /// instead of failing (for what a delete already removed).
    func summaries(of items: [StoredItem], tolerant: Bool = false) throws -> [KeychainItemSummary] {
        let needsSensor = items.contains { $0.accessPolicy?.constraints.contains(.biometryCurrentSet) ?? false }
        var enrollment: Int?
        if needsSensor { enrollment = tolerant ? try? biometry().enrollmentGeneration : try biometry().enrollmentGeneration }
        return items.map { $0.adminSummary(currentEnrollment: enrollment) }
    }

    /// Removes the items `filter` matches, under the keychain's write lock, for
    /// every process at once; returns the summaries of what was removed.
    package func deleteItems(matching filter: KeychainItemFilter) throws -> [KeychainItemSummary] {
        guard try DirectoryHandle.open(directory, below: containerRoot) != nil else { return [] }
        let removed = try modifyItems({ try presentParts() }, timeout: 30) { content in
            let removed = content.items.filter { $0.matches(filter) }
            content.items.removeAll { $0.matches(filter) }
            return removed
        }
        return try summaries(of: removed, tolerant: true)
    }

    /// Removes every item of every identity, keeping the device state (passcode,
    /// lock): `simctl keychain reset`. Returns how many items were removed.
    @discardableResult
    package func resetKeychain() throws -> Int {
        try deleteItems(matching: KeychainItemFilter()).count
    }
}

extension StoredItem {
    func stringAttribute(_ key: String) -> String? {
        if case let .string(value)? = attributes[key] { return value }
        return nil
    }

    /// - Parameter currentEnrollment: the sensor's enrolment generation; it decides
    ///   only a `.biometryCurrentSet` item's invalidation (nil there: unknown).
    func adminSummary(currentEnrollment: Int?) -> KeychainItemSummary {
        func date(_ key: String) -> Date? {
            if case let .date(value)? = attributes[key] { return value }
            return nil
        }
        return KeychainItemSummary(
            itemClass: itemClass.description, classCode: itemClass.rawValue,
            keychain: kind == .dataProtection ? "data protection" : "file-based",
            service: stringAttribute(RawKey.service), server: stringAttribute(RawKey.server), account: stringAttribute(RawKey.account) ?? "",
            accessGroup: accessGroup, accessibility: accessibility.description, synchronizable: synchronizable,
            valueBytes: value?.count ?? 0, attributeCount: attributes.count,
            created: date(RawKey.creationDate), modified: date(RawKey.modificationDate),
            accessControl: accessPolicy.map { policy in
                var flags = policy.constraints.map(\.rawValue)
                if policy.flags & AccessPolicy.orBit != 0 { flags.append("or") }
                if policy.flags & AccessPolicy.andBit != 0 { flags.append("and") }
                return KeychainAccessControlSummary(flags: flags, boundEnrollment: policy.boundEnrollment,
                    isInvalidated: policy.constraints.contains(.biometryCurrentSet)
                        ? currentEnrollment.map { policy.isInvalidated(currentEnrollment: $0) } : false)
            })
    }

    func matches(_ filter: KeychainItemFilter) -> Bool {
        func same(_ wanted: String?, _ actual: String?) -> Bool {
            guard let wanted else { return true }
            return actual.map { Array($0.unicodeScalars) == Array(wanted.unicodeScalars) } ?? false
        }
        return same(filter.classCode, itemClass.rawValue) && same(filter.service, stringAttribute(RawKey.service))
            && same(filter.account, stringAttribute(RawKey.account) ?? "") && same(filter.accessGroup, accessGroup)
            && (filter.accessibility.map { $0 == accessibility.rawValue || $0 == accessibility.description } ?? true)
            && (filter.synchronizable.map { $0 == synchronizable } ?? true)
    }
}
