import Foundation

/// The content of a notification, as Apple's `UNNotificationContent`: read-only;
/// `mutableCopy()` gives a ``UNMutableNotificationContent`` to change.
///
/// Sendable as Apple declares it; a ``UNMutableNotificationContent`` is not safe
/// to change from several threads at once, as on iOS.
public class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// The fields, shared by the mutable subclass.
    var fields: ContentFields

    init(fields: ContentFields) {
        self.fields = fields
        super.init()
    }

    /// Empty content.
    public override init() {
        fields = ContentFields()
        super.init()
    }

    /// The notification's primary description.
    public var title: String { fields.title }
    /// The secondary description.
    public var subtitle: String { fields.subtitle }
    /// The message.
    public var body: String { fields.body }
    /// The number the app's icon shows (nil: unchanged).
    public var badge: NSNumber? { fields.badge.map { NSNumber(value: $0) } }
    /// The sound played (nil: none).
    public var sound: UNNotificationSound? { fields.sound.map(UNNotificationSound.init(stored:)) }
    /// Custom data: on a push, the payload's keys.
    public var userInfo: [AnyHashable: Any] { fields.userInfo }
    /// Groups related notifications.
    public var threadIdentifier: String { fields.threadIdentifier }
    /// The category whose actions the notification shows.
    public var categoryIdentifier: String { fields.categoryIdentifier }
    /// Files shown with the notification.
    public var attachments: [UNNotificationAttachment] { fields.attachments }
    /// The launch image's name.
    public var launchImageName: String { fields.launchImageName }
    /// The scene the app shows for the notification.
    public var targetContentIdentifier: String? { fields.targetContentIdentifier }
    /// How urgently it interrupts the person.
    public var interruptionLevel: UNNotificationInterruptionLevel { fields.interruptionLevel }
    /// Its rank among the app's notifications in a summary (0 to 1).
    public var relevanceScore: Double { fields.relevanceScore }

    public func copy(with zone: NSZone? = nil) -> Any { UNNotificationContent(fields: fields) }
    public func mutableCopy(with zone: NSZone? = nil) -> Any { UNMutableNotificationContent(fields: fields) }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationContent else { return false }
        return fields.comparable == other.fields.comparable
    }

    public override var hash: Int { fields.title.hashValue ^ fields.body.hashValue }

    public override var description: String {
        "<UNNotificationContent title: \"\(title)\", subtitle: \"\(subtitle)\", body: \"\(body)\", badge: \(fields.badge.map(String.init) ?? "nil"), "
            + "threadIdentifier: \"\(threadIdentifier)\", categoryIdentifier: \"\(categoryIdentifier)\", attachments: \(attachments.count)>"
    }
}

/// The editable content of a notification, as Apple's `UNMutableNotificationContent`.
public final class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    /// Empty content.
    public override init() { super.init(fields: ContentFields()) }

    override init(fields: ContentFields) { super.init(fields: fields) }

    public override var title: String { get { fields.title } set { fields.title = newValue } }
    public override var subtitle: String { get { fields.subtitle } set { fields.subtitle = newValue } }
    public override var body: String { get { fields.body } set { fields.body = newValue } }
    public override var badge: NSNumber? { get { fields.badge.map { NSNumber(value: $0) } } set { fields.badge = newValue?.intValue } }
    public override var sound: UNNotificationSound? { get { fields.sound.map(UNNotificationSound.init(stored:)) } set { fields.sound = newValue?.stored } }
    public override var userInfo: [AnyHashable: Any] { get { fields.userInfo } set { fields.userInfo = newValue } }
    public override var threadIdentifier: String { get { fields.threadIdentifier } set { fields.threadIdentifier = newValue } }
    public override var categoryIdentifier: String { get { fields.categoryIdentifier } set { fields.categoryIdentifier = newValue } }
    public override var attachments: [UNNotificationAttachment] { get { fields.attachments } set { fields.attachments = newValue } }
    public override var launchImageName: String { get { fields.launchImageName } set { fields.launchImageName = newValue } }
    public override var targetContentIdentifier: String? { get { fields.targetContentIdentifier } set { fields.targetContentIdentifier = newValue } }
    public override var interruptionLevel: UNNotificationInterruptionLevel { get { fields.interruptionLevel } set { fields.interruptionLevel = newValue } }
    public override var relevanceScore: Double { get { fields.relevanceScore } set { fields.relevanceScore = newValue } }
}

/// The values of a content object (a copy is a copy of these).
struct ContentFields {
    var title = ""
    var subtitle = ""
    var body = ""
    var badge: Int?
    var sound: StoredSound?
    var userInfo: [AnyHashable: Any] = [:]
    var threadIdentifier = ""
    var categoryIdentifier = ""
    var attachments: [UNNotificationAttachment] = []
    var launchImageName = ""
    var targetContentIdentifier: String?
    var interruptionLevel = UNNotificationInterruptionLevel.active
    var relevanceScore = 0.0

    /// What equality compares (userInfo by its description: its values are any type).
    var comparable: [String] {
        [title, subtitle, body, badge.map(String.init) ?? "-", sound.map { "\($0)" } ?? "-", threadIdentifier, categoryIdentifier,
         launchImageName, targetContentIdentifier ?? "-", "\(interruptionLevel.rawValue)", "\(relevanceScore)", attachments.map { $0.identifier + "=" + $0.url.path }.joined(separator: ","),
         String(describing: userInfo.count)]
    }
}

/// How urgently a notification interrupts the person, as Apple's `UNNotificationInterruptionLevel`.
public enum UNNotificationInterruptionLevel: UInt, Sendable, Codable {
    case passive = 0
    case active = 1
    case timeSensitive = 2
    case critical = 3
}
