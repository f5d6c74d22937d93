import Foundation

/// What the share extension does with what the share sheet hands it.
public enum ShareExtension {
    /// Remembers `url` as the last share, then queues it for the app.
    ///
    /// In a target that has not joined the group, the setting lands in the
    /// target's own private suite (iOS's quiet fallback: the app never sees it),
    /// and queueing then fails with ``NotesError/appGroupUnavailable(group:)``.
    @discardableResult
    public static func share(_ url: URL) throws -> SharedItem {
        NotesSettings()?.lastSharedURL = url
        let item = SharedItem(url: url)
        try ShareQueue().append(item)
        return item
    }

    /// Shares a file the share sheet handed over: its contents are read first, as
    /// an extension loads an attachment, then its URL is queued. A file the
    /// extension may not read (on a device, anything outside what the sheet gave
    /// it and its own containers) throws Foundation's error (NSCocoaErrorDomain 257).
    @discardableResult
    public static func shareFile(at url: URL) throws -> SharedItem {
        _ = try Data(contentsOf: url)
        return try share(url)
    }
}
