import AppGroupContainer
import Foundation

/// The app's notification center, as Apple's `UNUserNotificationCenter`.
///
/// In a target a simulated device launched, every call goes to the device over
/// the channel the device made for the process: the device knows the app (an
/// extension's calls reach its app's center, as on iOS) and keeps the records
/// (delivered and pending notifications, badge, authorization, categories) where
/// no target may write. In a process without a channel the center is this
/// process's own, in its memory (the UserNotifications article says more).
///
/// Calls run in order on one queue of this process, so a read made after a
/// change sees it; completion handlers run on that queue.
public final class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    // @unchecked: `delegateBox` is only touched with `lock` held.
    private static let shared = UNUserNotificationCenter()
    private let queue = DispatchQueue(label: "UNUserNotificationCenter")
    private let lock = NSLock()
    private weak var delegateBox: (any UNUserNotificationCenterDelegate)?

    private override init() {}

    /// The center of this app.
    public class func current() -> UNUserNotificationCenter { shared }

    /// Handles notifications for the app in the foreground and the person's responses.
    public var delegate: (any UNUserNotificationCenterDelegate)? {
        get { lock.lock(); defer { lock.unlock() }; return delegateBox }
        set { lock.lock(); defer { lock.unlock() }; delegateBox = newValue }
    }

    // MARK: Authorization

    /// Asks the person to allow notifications (on a simulated device, the answer
    /// is the app's authorization as the test set it; Allow when it set none).
    public func requestAuthorization(options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run(CenterAsk(.requestAuthorization, options: options.rawValue)) { result in
            switch result {
            case .success(let answer): completionHandler(answer.granted ?? false, nil)
            case .failure(let error): completionHandler(false, error)
            }
        }
    }

    /// Asks the person to allow notifications.
    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        try await answer(CenterAsk(.requestAuthorization, options: options.rawValue)).granted ?? false
    }

    /// The app's notification settings.
    public func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        run(CenterAsk(.settings)) { result in completionHandler(Self.settings(result)) }
    }

    /// The app's notification settings.
    public func notificationSettings() async -> UNNotificationSettings {
        await withCheckedContinuation { continuation in getNotificationSettings { continuation.resume(returning: $0) } }
    }

    // MARK: Requests

    /// Schedules `request` (delivered at once without a trigger); a request with
    /// the identifier of a pending one replaces it.
    public func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let stored: StoredRequest
        do { stored = try StoredRequest(request) } catch {
            queue.async { completionHandler?(error) }
            return
        }
        run(CenterAsk(.add, request: stored)) { result in
            if case .failure(let error) = result { completionHandler?(error) } else { completionHandler?(nil) }
        }
    }

    /// Schedules `request`.
    public func add(_ request: UNNotificationRequest) async throws {
        let stored: StoredRequest
        do { stored = try StoredRequest(request) } catch { throw error }
        _ = try await answer(CenterAsk(.add, request: stored))
    }

    /// The requests not delivered yet.
    public func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void) {
        run(CenterAsk(.pending)) { completionHandler(((try? $0.get())?.pending ?? []).map(\.request)) }
    }

    /// The requests not delivered yet.
    public func pendingNotificationRequests() async -> [UNNotificationRequest] {
        await withCheckedContinuation { continuation in getPendingNotificationRequests { continuation.resume(returning: $0) } }
    }

    /// Removes the pending requests with these identifiers.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        run(CenterAsk(.removePending, identifiers: identifiers)) { _ in }
    }

    /// Removes every pending request.
    public func removeAllPendingNotificationRequests() {
        run(CenterAsk(.removeAllPending)) { _ in }
    }

    // MARK: Delivered notifications

    /// The app's notifications still in Notification Center.
    public func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
        run(CenterAsk(.delivered)) { completionHandler(((try? $0.get())?.delivered ?? []).map(\.notification)) }
    }

    /// The app's notifications still in Notification Center.
    public func deliveredNotifications() async -> [UNNotification] {
        await withCheckedContinuation { continuation in getDeliveredNotifications { continuation.resume(returning: $0) } }
    }

    /// Removes the app's delivered notifications with these identifiers.
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        run(CenterAsk(.removeDelivered, identifiers: identifiers)) { _ in }
    }

    /// Removes all of the app's delivered notifications.
    public func removeAllDeliveredNotifications() {
        run(CenterAsk(.removeAllDelivered)) { _ in }
    }

    // MARK: Badge and categories

    /// Sets the number on the app's icon (0 removes it).
    public func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        run(CenterAsk(.setBadge, badge: newBadgeCount)) { result in
            if case .failure(let error) = result { completionHandler?(error) } else { completionHandler?(nil) }
        }
    }

    /// Sets the number on the app's icon.
    public func setBadgeCount(_ newBadgeCount: Int) async throws {
        _ = try await answer(CenterAsk(.setBadge, badge: newBadgeCount))
    }

    /// Declares the app's notification types and their actions (replacing the earlier ones).
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        run(CenterAsk(.setCategories, categories: categories.map(\.stored).sorted { $0.identifier < $1.identifier })) { _ in }
    }

    /// The app's notification types.
    public func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        run(CenterAsk(.categories)) { completionHandler(Set(((try? $0.get())?.categories ?? []).map(UNNotificationCategory.init(stored:)))) }
    }

    /// The app's notification types.
    public func notificationCategories() async -> Set<UNNotificationCategory> {
        await withCheckedContinuation { continuation in getNotificationCategories { continuation.resume(returning: $0) } }
    }

    // MARK: Running calls

    /// Runs `ask` on the queue, then `completion` with its answer; a failure a
    /// call without a completion handler cannot report is written to standard error.
    private func run(_ ask: CenterAsk, completion: @escaping @Sendable (Result<CenterAnswer, any Error>) -> Void) {
        queue.async {
            let result = Result { try CenterBackend.perform(ask) }
            if case .failure(let error) = result, !(error is UNError) {
                Diagnostics.warn("UNUserNotificationCenter.\(ask.operation.rawValue): \(error)")
            }
            completion(result)
        }
    }

    private func answer(_ ask: CenterAsk) async throws -> CenterAnswer {
        try await withCheckedThrowingContinuation { continuation in run(ask) { continuation.resume(with: $0) } }
    }

    private static func settings(_ result: Result<CenterAnswer, any Error>) -> UNNotificationSettings {
        let answer = (try? result.get()) ?? CenterAnswer()
        return UNNotificationSettings(status: answer.status ?? .notDetermined, options: UNAuthorizationOptions(rawValue: answer.options ?? 0))
    }
}
