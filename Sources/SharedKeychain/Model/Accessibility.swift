/// When an item's data can be read: the `kSecAttrAccessible` values, with Apple's
/// raw strings. The default for an item added without one is ``whenUnlocked``.
public enum Accessibility: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Only while the device is unlocked (the default). Migrates with encrypted backups.
    case whenUnlocked = "ak"
    /// After the first unlock since boot, until the next reboot; for background work.
    case afterFirstUnlock = "ck"
    /// As ``whenUnlocked``, never leaving this device.
    case whenUnlockedThisDeviceOnly = "aku"
    /// As ``afterFirstUnlock``, never leaving this device.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// Only while unlocked, only with a passcode set; removing the passcode deletes these items.
    case whenPasscodeSetThisDeviceOnly = "akpu"
    /// Deprecated since iOS 12: always readable. Flagged, or refused by
    /// ``Keychain/Behavior/refusesDeprecatedAccessibility``.
    case always = "dk"
    /// Deprecated since iOS 12: always readable, this device only.
    case alwaysThisDeviceOnly = "dku"

    /// True for the classes that never leave the device, and so cannot sync.
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly, .alwaysThisDeviceOnly: return true
        case .whenUnlocked, .afterFirstUnlock, .always: return false
        }
    }

    /// True for the `Always` classes, deprecated since iOS 12.
    public var isDeprecated: Bool { self == .always || self == .alwaysThisDeviceOnly }

    /// The constant's name, `kSecAttrAccessibleWhenUnlocked` for example.
    public var constantName: String {
        switch self {
        case .whenUnlocked: return "kSecAttrAccessibleWhenUnlocked"
        case .afterFirstUnlock: return "kSecAttrAccessibleAfterFirstUnlock"
        case .whenUnlockedThisDeviceOnly: return "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
        case .afterFirstUnlockThisDeviceOnly: return "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
        case .whenPasscodeSetThisDeviceOnly: return "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"
        case .always: return "kSecAttrAccessibleAlways"
        case .alwaysThisDeviceOnly: return "kSecAttrAccessibleAlwaysThisDeviceOnly"
        }
    }

    public var description: String { constantName }

    /// Whether the class key is available in `state`. A device without a passcode
    /// is always unlocked, as far as data protection is concerned.
    public func isAvailable(in state: DeviceState) -> Bool {
        guard state.isPasscodeSet else { return self != .whenPasscodeSetThisDeviceOnly }
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: return !state.isLocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: return state.hasBeenUnlockedSinceBoot
        case .always, .alwaysThisDeviceOnly: return true
        }
    }
}
