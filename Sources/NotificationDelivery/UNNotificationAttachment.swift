import Foundation

/// A file shown with a notification, as Apple's `UNNotificationAttachment`.
///
/// As on iOS, the file must exist when the attachment is made (a notification
/// service extension writes it first, usually to its temporary directory).
public final class UNNotificationAttachment: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    /// The identifier given (or a unique one when it was empty).
    public let identifier: String
    /// The file.
    public let url: URL
    /// The file's type identifier, from its name's extension.
    public let type: String

    init(identifier: String, url: URL, type: String) {
        (self.identifier, self.url, self.type) = (identifier, url, type)
    }

    /// An attachment of the file at `url`.
    /// - Throws: `UNError` with code `attachmentInvalidURL` when `url` is not a
    ///   file URL of a readable regular file.
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        guard URL.isFileURL else {
            throw UNError(.attachmentInvalidURL, "the attachment's URL \(URL.absoluteString) is not a file URL; write the file first and attach its file URL")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: URL.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: URL.path) else {
            throw UNError(.attachmentInvalidURL, "the attachment's file \(URL.path) does not exist or is not a readable file; write it before making the attachment")
        }
        let hint = options?[UNNotificationAttachmentOptionsTypeHintKey] as? String
        self.init(identifier: identifier.isEmpty ? UUID().uuidString : identifier, url: URL,
                  type: hint ?? Self.typeIdentifier(ofExtension: URL.pathExtension))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    static func typeIdentifier(ofExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg": "public.jpeg"
        case "png": "public.png"
        case "gif": "com.compuserve.gif"
        case "heic": "public.heic"
        case "mp3": "public.mp3"
        case "m4a": "com.apple.m4a-audio"
        case "wav": "com.microsoft.waveform-audio"
        case "mp4": "public.mpeg-4"
        case "mov": "com.apple.quicktime-movie"
        default: "public.data"
        }
    }
}

/// The options key giving an attachment's type identifier, as Apple's.
public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
/// The options key hiding an attachment's thumbnail, as Apple's.
public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
