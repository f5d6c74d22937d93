import Foundation

/// What an app asks to be allowed, as Apple's `UNAuthorizationOptions`.
public struct UNAuthorizationOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
}

/// Whether an app may notify, as Apple's `UNAuthorizationStatus`.
public enum UNAuthorizationStatus: Int, Sendable, Codable {
    case notDetermined = 0
    case denied = 1
    case authorized = 2
    case provisional = 3
    case ephemeral = 4

    /// Whether notifications are delivered in this state.
    var allowsDelivery: Bool { self == .authorized || self == .provisional || self == .ephemeral }
}

/// Whether a setting is on, as Apple's `UNNotificationSetting`.
public enum UNNotificationSetting: Int, Sendable {
    case notSupported = 0
    case disabled = 1
    case enabled = 2
}

/// How alerts show, as Apple's `UNAlertStyle`.
public enum UNAlertStyle: Int, Sendable {
    case none = 0
    case banner = 1
    case alert = 2
}

/// How a notification is presented while its app is in the foreground, as Apple's
/// `UNNotificationPresentationOptions`.
public struct UNNotificationPresentationOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}

/// An app's notification settings, as Apple's `UNNotificationSettings`.
public final class UNNotificationSettings: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.
    public let authorizationStatus: UNAuthorizationStatus
    public let soundSetting: UNNotificationSetting
    public let badgeSetting: UNNotificationSetting
    public let alertSetting: UNNotificationSetting
    public let notificationCenterSetting: UNNotificationSetting
    public let lockScreenSetting: UNNotificationSetting
    public let alertStyle: UNAlertStyle

    init(status: UNAuthorizationStatus, options: UNAuthorizationOptions) {
        authorizationStatus = status
        let allowed = status.allowsDelivery
        func setting(_ option: UNAuthorizationOptions) -> UNNotificationSetting {
            allowed && options.contains(option) ? .enabled : .disabled
        }
        soundSetting = setting(.sound)
        badgeSetting = setting(.badge)
        alertSetting = setting(.alert)
        notificationCenterSetting = allowed ? .enabled : .disabled
        lockScreenSetting = allowed ? .enabled : .disabled
        alertStyle = allowed && options.contains(.alert) ? .banner : .none
    }
}
