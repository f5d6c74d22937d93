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
}
