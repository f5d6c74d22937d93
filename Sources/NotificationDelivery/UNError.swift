import Foundation

/// An error of the notification center, as Apple's `UNError`, whose `code` says
/// which (Apple's codes), with a message saying what to do.
public struct UNError: Error, Hashable, CustomStringConvertible, LocalizedError {
    /// Apple's error codes.
    public enum Code: Int, Sendable {
        case notificationsNotAllowed = 1
        case attachmentInvalidURL = 100
        case attachmentUnrecognizedType = 101
        case attachmentInvalidFileSize = 102
        case attachmentNotInDataStore = 103
        case attachmentMoveIntoDataStoreFailed = 104
        case attachmentCorrupt = 105
        case notificationInvalidNoDate = 1400
        case notificationInvalidNoContent = 1401
    }

    /// The domain of these errors, as Apple's.
    public static var errorDomain: String { "UNErrorDomain" }
    /// The code.
    public let code: Code
    let message: String

    init(_ code: Code, _ message: String) { (self.code, self.message) = (code, message) }

    public static var notificationsNotAllowed: Code { .notificationsNotAllowed }
    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    public static var notificationInvalidNoDate: Code { .notificationInvalidNoDate }
    public static var notificationInvalidNoContent: Code { .notificationInvalidNoContent }

    public var description: String { "UNError \(code.rawValue) (\(code)): \(message)" }
    public var errorDescription: String? { description }
}
