import Foundation

/// How an action behaves, as Apple's `UNNotificationActionOptions`.
public struct UNNotificationActionOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

/// An action a notification offers, as Apple's `UNNotificationAction`.
public class UNNotificationAction: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    public let identifier: String
    public let title: String
    public let options: UNNotificationActionOptions

    /// An action with `identifier` (the response's `actionIdentifier`) shown as `title`.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        (self.identifier, self.title, self.options) = (identifier, title, options)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction else { return false }
        return (identifier, title, options.rawValue) == (other.identifier, other.title, other.options.rawValue)
    }
    public override var hash: Int { identifier.hashValue }
}

/// How a category's notifications behave, as Apple's `UNNotificationCategoryOptions`.
public struct UNNotificationCategoryOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
}

/// A type of notification and its actions, as Apple's `UNNotificationCategory`.
public final class UNNotificationCategory: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    public let identifier: String
    public let actions: [UNNotificationAction]
    public let intentIdentifiers: [String]
    public let options: UNNotificationCategoryOptions

    /// A category named `identifier`, offering `actions`.
    public init(identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String], options: UNNotificationCategoryOptions = []) {
        (self.identifier, self.actions, self.intentIdentifiers, self.options) = (identifier, actions, intentIdentifiers, options)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationCategory else { return false }
        return identifier == other.identifier && actions == other.actions && intentIdentifiers == other.intentIdentifiers
            && options == other.options
    }
    public override var hash: Int { identifier.hashValue }

    var stored: StoredCategory {
        StoredCategory(identifier: identifier, actions: actions.map { .init(identifier: $0.identifier, title: $0.title, options: $0.options.rawValue) },
                       intentIdentifiers: intentIdentifiers, options: options.rawValue)
    }

    convenience init(stored: StoredCategory) {
        self.init(identifier: stored.identifier,
                  actions: stored.actions.map { UNNotificationAction(identifier: $0.identifier, title: $0.title, options: .init(rawValue: $0.options)) },
                  intentIdentifiers: stored.intentIdentifiers, options: .init(rawValue: stored.options))
    }
}

/// A category as the records keep it.
struct StoredCategory: Codable, Sendable, Equatable {
    struct Action: Codable, Sendable, Equatable {
        var identifier: String
        var title: String
        var options: UInt
    }
    var identifier: String
    var actions: [Action]
    var intentIdentifiers: [String]
    var options: UInt
}
