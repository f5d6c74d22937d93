import AppGroupContainer
import Foundation
import NotificationDelivery

// The notification centers of a simulated device's apps. A target's
// UNUserNotificationCenter calls come over the channel the device made for its
// process (subject `notifications.center`); the device names the app from the
// channel, never from the call, and runs the call on that app's records in
// <root>/.device/usernotifications (NotificationStore), where no target may write.
// The test sets an app's authorization and reads what it delivered.
extension SimulatedDevice {
    var notificationStore: NotificationStore { NotificationStore(root: ContainerRoot(root)) }

    /// The app whose notification center `target` uses: an app's own; an
    /// extension's is its containing app, whose bundle identifier iOS requires to
    /// prefix the extension's (`com.example.notes.service` belongs to `com.example.notes`).
    static func notificationApp(of target: SimulatedTarget) -> String {
        let bundle = target.bundleIdentifier
        guard target.kind != .app, let dot = bundle.lastIndex(of: ".") else { return bundle }
        return String(bundle[..<dot])
    }

    /// The answer to a `notifications.` ask from `asker`.
    func answerNotificationAsk(_ subject: String, _ payload: String, from asker: DeviceAsker) -> DeviceAnswer {
        #if !canImport(Darwin)
        if subject == NotificationServiceHost.contentSubject { return takeServiceContent(payload, from: asker) }
        #endif
        guard subject == NotificationStore.subject else {
            return .refused("a target asks its notification center only with \(NotificationStore.subject)")
        }
        do {
            return .ok(try notificationStore.answer(payload, app: Self.notificationApp(of: asker.target), from: "\(asker)"))
        } catch {
            Diagnostics.warn("UserNotifications on the simulated device: \(error)")
            return .refused("\(error)")
        }
    }

    /// Sets `app`'s notification authorization, as the person would answer the
    /// prompt or change it in Settings (`requestAuthorization` then answers it).
    /// - Throws: `NotificationStoreError` (NotificationDelivery) when the records cannot be written.
    public func setNotificationAuthorization(_ status: UNAuthorizationStatus, options: UNAuthorizationOptions = [.alert, .sound, .badge],
                                             for app: SimulatedTarget) throws {
        try SimulationError.passingUp {
            try notificationStore.setAuthorization(status, options: options, app: Self.notificationApp(of: app))
        }
    }

    /// The notifications `app` (or its extensions) delivered still in Notification Center, oldest first.
    /// - Throws: `NotificationStoreError` (NotificationDelivery) when the records cannot be read.
    public func deliveredNotifications(of app: SimulatedTarget) throws -> [UNNotification] {
        try SimulationError.passingUp { try notificationStore.delivered(app: Self.notificationApp(of: app)) }
    }

    /// `app`'s requests waiting for their trigger, soonest first.
    /// - Throws: `NotificationStoreError` (NotificationDelivery) when the records cannot be read.
    public func pendingNotificationRequests(of app: SimulatedTarget) throws -> [UNNotificationRequest] {
        try SimulationError.passingUp { try notificationStore.pending(app: Self.notificationApp(of: app)) }
    }

    /// The number on `app`'s icon.
    /// - Throws: `NotificationStoreError` (NotificationDelivery) when the records cannot be read.
    public func notificationBadgeCount(of app: SimulatedTarget) throws -> Int {
        try SimulationError.passingUp { try notificationStore.badge(app: Self.notificationApp(of: app)) }
    }
}
