import Foundation

/// A request to deliver a notification, as Apple's `UNNotificationRequest`.
public final class UNNotificationRequest: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init (its content is a copy).
    /// The request's identifier: a later request with the same one replaces it.
    public let identifier: String
    /// What the notification shows.
    public let content: UNNotificationContent
    /// When it is delivered (nil: at once).
    public let trigger: UNNotificationTrigger?

    /// A request delivering `content` when `trigger` fires (nil: at once).
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = UNNotificationContent(fields: content.fields)
        self.trigger = trigger
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// When a notification is delivered, as Apple's `UNNotificationTrigger`.
public class UNNotificationTrigger: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    /// Whether it fires again after it fired.
    public let repeats: Bool
    init(repeats: Bool) { self.repeats = repeats }
    public func copy(with zone: NSZone? = nil) -> Any { self }
    var stored: StoredTrigger { .push }
}

/// The trigger of a notification Apple's push service sent.
public final class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    init() { super.init(repeats: false) }
}

/// A trigger firing after a time interval, as Apple's `UNTimeIntervalNotificationTrigger`.
public final class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// Seconds from when the request is added (or from the last firing).
    public let timeInterval: TimeInterval
    let addedAt: Date

    /// A trigger firing `timeInterval` seconds after the request is added. iOS
    /// refuses an interval of 0 or less, and one under 60 s that repeats (it
    /// raises an exception); here such an interval is taken as 60 s, with a warning.
    public init(timeInterval: TimeInterval, repeats: Bool) {
        var interval = timeInterval
        if !(interval > 0) || (repeats && interval < 60) {
            FileHandle.standardError.write(Data("UNTimeIntervalNotificationTrigger: an interval of \(timeInterval) s\(repeats ? " that repeats" : "") raises an exception on iOS (at least 60 s to repeat, more than 0 otherwise); taken as 60 s\n".utf8))
            interval = 60
        }
        self.timeInterval = interval
        self.addedAt = Date()
        super.init(repeats: repeats)
    }

    /// When it fires next.
    public func nextTriggerDate() -> Date? { addedAt.addingTimeInterval(timeInterval) }

    override var stored: StoredTrigger { .timeInterval(timeInterval, repeats: repeats) }
}

/// A trigger firing at dates matching components, as Apple's `UNCalendarNotificationTrigger`.
public final class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The components a firing date matches.
    public let dateComponents: DateComponents

    /// A trigger firing at the next date matching `dateComponents`.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    /// The next date matching the components.
    public func nextTriggerDate() -> Date? { Self.next(after: Date(), matching: dateComponents) }

    static func next(after date: Date, matching components: DateComponents) -> Date? {
        (components.calendar ?? Calendar.current).nextDate(after: date, matching: components, matchingPolicy: .nextTime)
    }

    override var stored: StoredTrigger { .calendar(dateComponents, repeats: repeats) }
}

/// A trigger as the records keep it.
enum StoredTrigger: Codable, Sendable, Equatable {
    case push
    case timeInterval(TimeInterval, repeats: Bool)
    case calendar(DateComponents, repeats: Bool)

    var repeats: Bool {
        switch self {
        case .push: false
        case .timeInterval(_, let repeats), .calendar(_, let repeats): repeats
        }
    }

    /// When a request added (or last fired) at `date` fires next.
    func fireDate(after date: Date) -> Date? {
        switch self {
        case .push: date
        case .timeInterval(let interval, _): date.addingTimeInterval(interval)
        case .calendar(let components, _): UNCalendarNotificationTrigger.next(after: date, matching: components)
        }
    }

    var trigger: UNNotificationTrigger {
        switch self {
        case .push: UNPushNotificationTrigger()
        case .timeInterval(let interval, let repeats): UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats)
        case .calendar(let components, let repeats): UNCalendarNotificationTrigger(dateMatching: components, repeats: repeats)
        }
    }
}
