import Foundation

/// A call of `UNUserNotificationCenter`, as it goes to the device over a target's
/// channel (one line of JSON, subject ``subject``). It names no app: the device
/// knows the caller by the channel.
struct CenterAsk: Codable, Sendable {
    /// The subject of the ask.
    static let subject = "notifications.center"

    enum Operation: String, Codable, Sendable {
        case add, delivered, removeDelivered, removeAllDelivered, pending, removePending, removeAllPending
        case setBadge, requestAuthorization, settings, setCategories, categories
    }

    var operation: Operation
    var request: StoredRequest?
    var identifiers: [String]?
    var badge: Int?
    var options: UInt?
    var categories: [StoredCategory]?

    init(_ operation: Operation, request: StoredRequest? = nil, identifiers: [String]? = nil, badge: Int? = nil,
         options: UInt? = nil, categories: [StoredCategory]? = nil) {
        (self.operation, self.request, self.identifiers, self.badge) = (operation, request, identifiers, badge)
        (self.options, self.categories) = (options, categories)
    }

    /// Why the device cannot take this ask, or nil (bounds a hostile target's ask).
    var problem: String? {
        if let request {
            if request.identifier.utf8.count > 1024 { return "the request's identifier is longer than 1,024 bytes" }
            if let size = try? JSONEncoder().encode(request).count, size > CenterRecords.requestLimit {
                return "the request is \(size) bytes of JSON; the limit is \(CenterRecords.requestLimit) (a push payload is at most 4 KiB)"
            }
        }
        if (identifiers?.count ?? 0) > 10_000 { return "more than 10,000 identifiers" }
        if (categories?.count ?? 0) > 1_000 { return "more than 1,000 categories" }
        return nil
    }
}

/// The device's answer to a ``CenterAsk``.
struct CenterAnswer: Codable, Sendable, Equatable {
    struct Failure: Codable, Sendable, Equatable {
        var code: Int
        var message: String
    }
    var delivered: [StoredNotification]?
    var pending: [StoredRequest]?
    var granted: Bool?
    var status: UNAuthorizationStatus?
    var options: UInt?
    var categories: [StoredCategory]?
    var failure: Failure?

    static func failure(_ code: UNError.Code, _ message: String) -> CenterAnswer {
        var answer = CenterAnswer()
        answer.failure = Failure(code: code.rawValue, message: message)
        return answer
    }

    /// The failure as Apple's error, or nil.
    var error: UNError? {
        failure.map { UNError(UNError.Code(rawValue: $0.code) ?? .notificationsNotAllowed, $0.message) }
    }
}
