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
    /// Every item the device holds, in file order.
    package func itemSummaries() throws -> [KeychainItemSummary] {
        try KeychainFile.load(keychainURL).items.map(\.adminSummary)
    }

    /// Removes the items `filter` matches, under the keychain's write lock, for
    /// every process at once; returns the summaries of what was removed.
    package func deleteItems(matching filter: KeychainItemFilter) throws -> [KeychainItemSummary] {
        guard try DirectoryHandle.open(directory) != nil else { return [] }
        return try KeychainFile.modify(keychainURL, timeout: 30) { content in
            let removed = content.items.filter { $0.matches(filter) }
            content.items.removeAll { $0.matches(filter) }
            return removed.map(\.adminSummary)
        }
    }

    /// Removes every item of every identity, keeping the device state (passcode,
    /// lock): `simctl keychain reset`. Returns how many items were removed.
    @discardableResult
    package func resetKeychain() throws -> Int {
        try deleteItems(matching: KeychainItemFilter()).count
    }
}

extension StoredItem {
    var adminSummary: KeychainItemSummary {
        func string(_ key: String) -> String? {
            if case let .string(value)? = attributes[key] { return value }
            return nil
        }
        func date(_ key: String) -> Date? {
            if case let .date(value)? = attributes[key] { return value }
            return nil
        }
        return KeychainItemSummary(
            itemClass: itemClass.description, classCode: itemClass.rawValue,
            keychain: kind == .dataProtection ? "data protection" : "file-based",
            service: string(SecKey.service), server: string(SecKey.server), account: string(SecKey.account) ?? "",
            accessGroup: accessGroup, accessibility: accessibility.description, synchronizable: synchronizable,
            valueBytes: value?.count ?? 0, attributeCount: attributes.count,
            created: date(SecKey.creationDate), modified: date(SecKey.modificationDate))
    }

    func matches(_ filter: KeychainItemFilter) -> Bool {
        let summary = adminSummary
        func same(_ wanted: String?, _ actual: String?) -> Bool {
            guard let wanted else { return true }
            return actual.map { Array($0.unicodeScalars) == Array(wanted.unicodeScalars) } ?? false
        }
        return same(filter.classCode, itemClass.rawValue) && same(filter.service, summary.service)
            && same(filter.account, summary.account) && same(filter.accessGroup, accessGroup)
            && (filter.accessibility.map { $0 == accessibility.rawValue || $0 == accessibility.description } ?? true)
            && (filter.synchronizable.map { $0 == synchronizable } ?? true)
    }
}
