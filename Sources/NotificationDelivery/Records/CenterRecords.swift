import Foundation

/// One app's notification center: its authorization, delivered and pending
/// notifications, badge and categories, and what each call of
/// `UNUserNotificationCenter` does to them. The same code runs for a process
/// without a channel (on records in its memory) and on a simulated device (on the
/// app's records in the device's directory, for a call that came over a target's
/// channel), so both behave alike.
struct CenterRecords: Codable, Sendable, Equatable {
    /// A pending request and when it fires next.
    struct Pending: Codable, Sendable, Equatable {
        var request: StoredRequest
        var fireDate: Date
    }

    var status: UNAuthorizationStatus = .notDetermined
    var options: UInt = 0
    var delivered: [StoredNotification] = []
    var pending: [Pending] = []
    var badge = 0
    var categories: [StoredCategory] = []

    /// Delivered notifications kept per app; older ones leave Notification Center.
    static let deliveredLimit = 100
    /// Pending requests kept per app: iOS keeps the 64 soonest and discards the rest.
    static let pendingLimit = 64
    /// The largest request (as the JSON the channel carries): far above what a
    /// notification shows (an APNs payload is at most 4 KiB).
    static let requestLimit = 16 * 1024

    /// Runs `ask` at `now`.
    mutating func perform(_ ask: CenterAsk, now: Date) -> CenterAnswer {
        fire(now: now)
        var answer = CenterAnswer()
        switch ask.operation {
        case .add:
            guard let request = ask.request else { return .failure(.notificationInvalidNoContent, "an add without a request") }
            guard status.allowsDelivery else {
                return .failure(.notificationsNotAllowed, "notifications are not allowed for this app (authorization: \(status)); "
                                + "call requestAuthorization(options:completionHandler:) first, or set the app's authorization on the simulated device")
            }
            pending.removeAll { $0.request.identifier == request.identifier }
            if let trigger = request.trigger, trigger != .push {
                guard let date = trigger.fireDate(after: now) else {
                    return .failure(.notificationInvalidNoDate, "the trigger of request \"\(request.identifier)\" matches no future date")
                }
                pending.append(Pending(request: request, fireDate: date))
                pending.sort { $0.fireDate < $1.fireDate }
                if pending.count > Self.pendingLimit { pending.removeLast(pending.count - Self.pendingLimit) }
            } else {
                deliver(request, at: now)
            }
        case .delivered:
            answer.delivered = delivered
        case .removeDelivered:
            let identifiers = Set(ask.identifiers ?? [])
            delivered.removeAll { identifiers.contains($0.request.identifier) }
        case .removeAllDelivered:
            delivered = []
        case .pending:
            answer.pending = pending.map(\.request)
        case .removePending:
            let identifiers = Set(ask.identifiers ?? [])
            pending.removeAll { identifiers.contains($0.request.identifier) }
        case .removeAllPending:
            pending = []
        case .setBadge:
            badge = max(0, ask.badge ?? 0)
        case .requestAuthorization:
            // The person answers the prompt once, as on iOS: Allow when the test
            // did not decide otherwise; later requests answer what was decided.
            if status == .notDetermined { status = .authorized }
            if status.allowsDelivery { options |= ask.options ?? 0 }
            answer.granted = status.allowsDelivery
        case .settings:
            answer.status = status
            answer.options = options
        case .setCategories:
            categories = ask.categories ?? []
        case .categories:
            answer.categories = categories
        }
        return answer
    }

    /// Delivers `request` at `date`: it replaces a delivered one with its
    /// identifier, and sets the badge when the app may badge.
    mutating func deliver(_ request: StoredRequest, at date: Date) {
        delivered.removeAll { $0.request.identifier == request.identifier }
        delivered.append(StoredNotification(date: date, request: request))
        if delivered.count > Self.deliveredLimit { delivered.removeFirst(delivered.count - Self.deliveredLimit) }
        if let badge = request.content.badge, UNAuthorizationOptions(rawValue: options).contains(.badge) { self.badge = max(0, badge) }
    }

    /// Delivers the pending requests whose date came; a repeating one stays, with its next date.
    mutating func fire(now: Date) {
        var kept: [Pending] = []
        for item in pending {
            guard item.fireDate <= now else { kept.append(item); continue }
            if status.allowsDelivery { deliver(item.request, at: item.fireDate) }
            guard let trigger = item.request.trigger, trigger.repeats else { continue }
            var next = item.fireDate
            while next <= now, let later = trigger.fireDate(after: next), later > next { next = later }
            if next > now { kept.append(Pending(request: item.request, fireDate: next)) }
        }
        pending = kept
    }
}
