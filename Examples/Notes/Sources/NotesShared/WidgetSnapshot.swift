import Foundation

/// What the widget shows, written by the app (`WidgetSnapshot.json` in the
/// group container): the widget reads data it never fetched itself.
public struct WidgetSnapshot: Codable, Sendable, Equatable {
    /// How many notes the app has.
    public var noteCount: Int
    /// The newest notes' URLs, newest first (three at most).
    public var latest: [URL]

    /// The snapshot of `notes` (oldest first, as ``NotesLibrary/notes()`` gives them).
    public init(notes: [SharedItem]) {
        noteCount = notes.count
        latest = notes.suffix(3).reversed().map(\.url)
    }

    /// Replaces the group's snapshot with this one (the app's side).
    public func publish() throws {
        try Self.file().replace(with: self)
    }

    /// The snapshot the app last published; nil before it published one (the widget's side).
    public static func current() throws -> WidgetSnapshot? {
        try file().read()
    }

    private static func file() throws -> CoordinatedFile<WidgetSnapshot?> {
        CoordinatedFile(url: try NotesGroup.dataDirectory().appendingPathComponent("WidgetSnapshot.json"), empty: nil)
    }
}
