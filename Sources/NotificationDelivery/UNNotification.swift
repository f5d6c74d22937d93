import Foundation

/// A delivered notification, as Apple's `UNNotification`.
public final class UNNotification: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    /// When it was delivered.
    public let date: Date
    /// The request delivered.
    public let request: UNNotificationRequest

    init(date: Date, request: UNNotificationRequest) { (self.date, self.request) = (date, request) }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// The person's response to a notification, as Apple's `UNNotificationResponse`.
public class UNNotificationResponse: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    /// The notification responded to.
    public let notification: UNNotification
    /// The action chosen: an action's identifier, ``UNNotificationDefaultActionIdentifier``
    /// (the notification was opened) or ``UNNotificationDismissActionIdentifier``.
    public let actionIdentifier: String

    init(notification: UNNotification, actionIdentifier: String) {
        (self.notification, self.actionIdentifier) = (notification, actionIdentifier)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// The action identifier of a response that opened the app, as Apple's.
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
/// The action identifier of a response that dismissed the notification, as Apple's.
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
