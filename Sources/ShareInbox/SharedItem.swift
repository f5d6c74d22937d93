import AppGroupContainer
import Foundation

/// What a share extension hands to a ``ShareInbox``: a few small fields and,
/// optionally, files to copy into the container (as Apple's App Extension
/// Programming Guide advises for sharing data with the containing app: heavy
/// items go into the shared container, and only their names travel).
///
/// The fields mirror what `NSExtensionItem` carries: a URL, a title, a kind (a
/// uniform type identifier such as `public.url`), a date and attachments.
public struct SharedItem: Sendable, Hashable {
    /// The shared URL, if any.
    public var url: URL?
    /// A title to show (the page title, the first line of a note...).
    public var title: String?
    /// A uniform type identifier: `public.url`, `public.plain-text`, `public.jpeg`...
    public var kind: String
    /// When the user shared it.
    public var date: Date
    /// Files copied into the inbox with the item and removed with it.
    public var attachments: [Attachment]

    /// A file to copy into the inbox with the item.
    public struct Attachment: Sendable, Hashable {
        /// Where the file is now: an absolute file URL the extension may read.
        public var fileURL: URL
        /// The name it is stored under in the item (one path component, not
        /// starting with "."); defaults to the source's last path component.
        public var name: String

        /// - Parameters:
        ///   - fileURL: the regular file to copy (absolute; symbolic links refused).
        ///   - name: the stored name; the source's own name when nil.
        public init(fileURL: URL, name: String? = nil) {
            self.fileURL = fileURL
            self.name = name ?? fileURL.lastPathComponent
        }
    }

    /// - Parameters:
    ///   - url: the shared URL.
    ///   - title: a title to show.
    ///   - kind: a uniform type identifier, `public.url` by default.
    ///   - date: the share's date, now by default.
    ///   - attachments: files to copy into the inbox with the item.
    public init(url: URL? = nil, title: String? = nil, kind: String = "public.url", date: Date = Date(), attachments: [Attachment] = []) {
        self.url = url
        self.title = title
        self.kind = kind
        self.date = date
        self.attachments = attachments
    }

    /// Limits that keep an item "small fields plus files".
    public enum Limits {
        /// Longest URL, in UTF-8 bytes.
        public static let urlBytes = 8192
        /// Longest title, in UTF-8 bytes.
        public static let titleBytes = 4096
        /// Longest kind, in UTF-8 bytes.
        public static let kindBytes = 255
        /// Most attachments per item.
        public static let attachments = 64
    }
}

/// An item as the app receives it from ``ShareInbox/drain(maximumCount:_:)``.
public struct ReceivedItem: Sendable, Hashable {
    /// Its place in enqueue order (see ``ShareInbox``): increasing, never reused.
    public let sequenceNumber: UInt64
    /// The shared URL, if any.
    public let url: URL?
    /// The title, if any.
    public let title: String?
    /// The uniform type identifier given at enqueue.
    public let kind: String
    /// The date given at enqueue.
    public let date: Date
    /// The bundle identifier of the process that enqueued it, when it was known.
    public let senderBundleIdentifier: String?
    /// The attachment files, inside the inbox. They exist while the handler runs
    /// and are removed with the item once it returns: copy or move what you keep.
    public let attachments: [URL]
}
