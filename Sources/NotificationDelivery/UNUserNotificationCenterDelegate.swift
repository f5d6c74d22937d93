import Foundation

/// Handles notifications for an app in the foreground and the person's
/// responses, as Apple's `UNUserNotificationCenterDelegate`. Both methods are
/// optional, as in Apple's protocol (default implementations below).
public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    /// Asks how to present `notification`, arriving while the app is in the foreground.
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void)
    /// Tells the app the person responded to a notification.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                withCompletionHandler completionHandler: @escaping @Sendable () -> Void)
}

extension UNUserNotificationCenterDelegate {
    /// Presents nothing, as iOS does for a delegate without this method.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                       withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void) {
        completionHandler([])
    }

    /// Does nothing.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {
        completionHandler()
    }
}
