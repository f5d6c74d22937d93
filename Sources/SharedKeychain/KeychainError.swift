import AppGroupContainer
import Foundation

/// Every error the SharedKeychain module throws. Each carries Apple's status code
/// (``status``) and says what went wrong, where, and what to do; none ever
/// contains an item's value.
public enum KeychainError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// `errSecDuplicateItem` (-25299): an item with the same primary key exists.
    case duplicateItem(item: String)
    /// `errSecItemNotFound` (-25300): nothing matched. `query` summarises the search.
    case itemNotFound(query: String)
    /// `errSecMissingEntitlement` (-34018), or -25300 in the pre-iOS 13 mode: the
    /// process names an access group it does not hold.
    case missingEntitlement(group: String, bundleIdentifier: String, heldGroups: [String], status: Int32)
    /// `errSecInteractionNotAllowed` (-25308): the item's class key is unavailable in this device state.
    case interactionNotAllowed(item: String, accessibility: Accessibility, deviceState: DeviceState)
    /// `errSecParam` (-50): a malformed query (no class, a wrong value type, sync with ThisDeviceOnly...).
    case invalidParameter(operation: String, problem: String)
    /// `errSecNoSuchAttr` (-25303): an attribute the item class does not have.
    case noSuchAttribute(operation: String, key: String, itemClass: ItemClass)
    /// `errSecNotAvailable` (-25291): no keychain can serve the call (no identity, no passcode for the class).
    case notAvailable(problem: String)
    /// `errSecUnimplemented` (-4): a feature the emulator does not provide.
    case unimplemented(feature: String)
    /// `errSecInvalidKeychain` (-25295): the keychain file cannot be decoded; it is left untouched.
    case invalidKeychain(path: String, problem: String)
    /// `errSecIO` (-36): the file system failed (disk full, permissions, a lock timeout).
    case storage(AppGroupError)
    /// -128, -25293 or -25308: a protected item's authentication did not succeed.
    case authentication(AuthenticationFailure)

    /// The `OSStatus` Apple's API returns for this error.
    public var status: Int32 {
        switch self {
        case .duplicateItem: return SecStatus.duplicateItem
        case .itemNotFound: return SecStatus.itemNotFound
        case let .missingEntitlement(_, _, _, status): return status
        case .interactionNotAllowed: return SecStatus.interactionNotAllowed
        case .invalidParameter: return SecStatus.param
        case .noSuchAttribute: return SecStatus.noSuchAttribute
        case .notAvailable: return SecStatus.notAvailable
        case .unimplemented: return SecStatus.unimplemented
        case .invalidKeychain: return SecStatus.invalidKeychain
        case .storage: return SecStatus.io
        case let .authentication(failure): return failure.status
        }
    }

    public var description: String {
        let code = "(\(status)) "
        switch self {
        case let .duplicateItem(item):
            return code + "errSecDuplicateItem: an item with the same primary key already exists (\(item)). "
                + "Update it with SecItemUpdate, or add-or-update (Keychain.save)."
        case let .itemNotFound(query):
            return code + "errSecItemNotFound: no item matches \(query)."
        case let .missingEntitlement(group, bundle, held, status):
            let holds = held.joined(separator: ", ")
            var text = code + (status == SecStatus.missingEntitlement ? "errSecMissingEntitlement" : "errSecItemNotFound (pre-iOS 13 answer)")
                + ": \(bundle) is not entitled to the keychain access group \"\(group)\"; it holds \(holds)."
            if let full = held.first(where: { $0.hasSuffix("." + group) && $0.count == group.count + 11 }) {
                text += " \"\(group)\" lacks its Team ID prefix: code must use the expanded string \"\(full)\" ($(AppIdentifierPrefix) is expanded only in the entitlements file)."
            } else {
                text += " Fix: add the Keychain Sharing capability (keychain-access-groups) with this group to the \(bundle) target itself; extensions do not inherit the app's."
            }
            return text
        case let .interactionNotAllowed(item, accessibility, state):
            let advice = accessibility == .afterFirstUnlock || accessibility == .afterFirstUnlockThisDeviceOnly
                ? "It becomes readable once the user unlocks the device after boot."
                : "Read it after the user unlocks, or store it with kSecAttrAccessibleAfterFirstUnlock if background work needs it while the device is locked."
            return code + "errSecInteractionNotAllowed: \(item) is \(accessibility) and the device is \(state). " + advice
        case let .invalidParameter(operation, problem):
            return code + "errSecParam: \(operation): \(problem)"
        case let .noSuchAttribute(operation, key, itemClass):
            return code + "errSecNoSuchAttr: \(operation): \(RawKey.name(key)) is not an attribute of \(itemClass) items."
        case let .notAvailable(problem):
            return code + "errSecNotAvailable: \(problem)"
        case let .unimplemented(feature):
            return code + "errSecUnimplemented: \(feature) is not emulated."
        case let .invalidKeychain(path, problem):
            return code + "errSecInvalidKeychain: \(path) cannot be read as a keychain (\(problem)). "
                + "It was left untouched: move it aside (or erase the simulated device) to start over."
        case let .storage(error):
            return code + "errSecIO: \(error.description)"
        case let .authentication(failure):
            return code + failure.description
        }
    }

    public var errorDescription: String? { description }
}
