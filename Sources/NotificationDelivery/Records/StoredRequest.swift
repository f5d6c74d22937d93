import Foundation

/// A request as the records and the channel carry it: every value copied out of
/// the Apple objects, `userInfo` as a binary property list (what iOS accepts in
/// a notification's user info: property-list values under string keys).
struct StoredRequest: Codable, Sendable, Equatable {
    struct Attachment: Codable, Sendable, Equatable {
        var identifier: String
        var path: String
        var type: String
    }
    struct Content: Codable, Sendable, Equatable {
        var title = ""
        var subtitle = ""
        var body = ""
        var badge: Int?
        var sound: StoredSound?
        var userInfo = Data()
        var threadIdentifier = ""
        var categoryIdentifier = ""
        var attachments: [Attachment] = []
        var launchImageName = ""
        var targetContentIdentifier: String?
        var interruptionLevel: UNNotificationInterruptionLevel = .active
        var relevanceScore = 0.0
    }
    var identifier: String
    var content: Content
    /// nil: delivered at once.
    var trigger: StoredTrigger?

    /// The request's values.
    /// - Throws: `UNError` (`notificationInvalidNoContent`) when `userInfo` holds
    ///   a key that is not a string or a value that is not a property-list value.
    init(_ request: UNNotificationRequest) throws(UNError) {
        let fields = request.content.fields
        let info: Data
        do throws(NotPropertyList) {
            info = try Self.encode(userInfo: fields.userInfo)
        } catch {
            throw UNError(.notificationInvalidNoContent, "the userInfo of request \"\(request.identifier)\" is not a property list (\(error.message)); "
                          + "keep to strings, numbers, dates, data, arrays and dictionaries under string keys, as iOS requires")
        }
        identifier = request.identifier
        content = Content(title: fields.title, subtitle: fields.subtitle, body: fields.body, badge: fields.badge, sound: fields.sound,
                          userInfo: info, threadIdentifier: fields.threadIdentifier, categoryIdentifier: fields.categoryIdentifier,
                          attachments: fields.attachments.map { Attachment(identifier: $0.identifier, path: $0.url.path, type: $0.type) },
                          launchImageName: fields.launchImageName, targetContentIdentifier: fields.targetContentIdentifier,
                          interruptionLevel: fields.interruptionLevel, relevanceScore: fields.relevanceScore)
        trigger = request.trigger.map(\.stored)
    }

    init(identifier: String, content: Content, trigger: StoredTrigger?) {
        (self.identifier, self.content, self.trigger) = (identifier, content, trigger)
    }

    /// The Apple objects again.
    var request: UNNotificationRequest {
        var fields = ContentFields()
        fields.title = content.title
        fields.subtitle = content.subtitle
        fields.body = content.body
        fields.badge = content.badge
        fields.sound = content.sound
        fields.userInfo = (try? Self.decode(userInfo: content.userInfo)) ?? [:]
        fields.threadIdentifier = content.threadIdentifier
        fields.categoryIdentifier = content.categoryIdentifier
        fields.attachments = content.attachments.map {
            UNNotificationAttachment(identifier: $0.identifier, url: URL(fileURLWithPath: $0.path), type: $0.type)
        }
        fields.launchImageName = content.launchImageName
        fields.targetContentIdentifier = content.targetContentIdentifier
        fields.interruptionLevel = content.interruptionLevel
        fields.relevanceScore = content.relevanceScore
        return UNNotificationRequest(identifier: identifier, content: UNNotificationContent(fields: fields), trigger: trigger?.trigger)
    }

    struct NotPropertyList: Error { let message: String }

    static func encode(userInfo: [AnyHashable: Any]) throws(NotPropertyList) -> Data {
        if userInfo.isEmpty { return Data() }
        var dictionary: [String: Any] = [:]
        for (key, value) in userInfo {
            guard let name = key.base as? String else { throw NotPropertyList(message: "the key \(key) is not a string") }
            dictionary[name] = value
        }
        guard PropertyListSerialization.propertyList(dictionary, isValidFor: .binary) else {
            throw NotPropertyList(message: "a value is not a property-list value")
        }
        do { return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0) } catch {
            throw NotPropertyList(message: "\(error)")
        }
    }

    static func decode(userInfo data: Data) throws -> [AnyHashable: Any] {
        if data.isEmpty { return [:] }
        guard let dictionary = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else { return [:] }
        var info: [AnyHashable: Any] = [:]
        for (key, value) in dictionary { info[AnyHashable(key)] = value }
        return info
    }
}

/// A delivered notification as the records keep it.
struct StoredNotification: Codable, Sendable, Equatable {
    var date: Date
    var request: StoredRequest

    var notification: UNNotification { UNNotification(date: date, request: request.request) }
}
