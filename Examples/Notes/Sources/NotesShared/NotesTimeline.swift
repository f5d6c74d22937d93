import Foundation
import WidgetKit // Apple's on Apple's platforms; the package's reload side on Linux
#if !canImport(Darwin)
import WidgetReloads // WidgetHost: where WidgetKit's extension host does not exist
#endif

/// What the widget shows: how many notes, and the newest one.
public struct NotesEntry: TimelineEntry, CustomStringConvertible {
    public let date: Date
    public let noteCount: Int
    public let newest: URL?

    public var description: String {
        noteCount == 0 ? "no notes yet" : "notes \(noteCount), newest \(newest?.absoluteString ?? "?")"
    }
}

/// The widget's timeline provider: it reads the snapshot the app published in the
/// group (``WidgetSnapshot``), never the notes themselves. On iOS it is the
/// widget extension's `StaticConfiguration(kind:provider:)`; its SwiftUI view
/// stays there.
public struct NotesTimelineProvider: TimelineProvider {
    /// The widget's kind, as the widget extension declares it.
    public static let kind = "NotesWidget"

    public init() {}

    public func placeholder(in context: Context) -> NotesEntry {
        NotesEntry(date: Date(), noteCount: 0, newest: nil)
    }

    public func getSnapshot(in context: Context, completion: @escaping @Sendable (NotesEntry) -> Void) {
        completion(Self.entry())
    }

    /// One entry, until the app asks for a reload (`.never`): the notes change
    /// only when the app saves, and the app says so.
    public func getTimeline(in context: Context, completion: @escaping @Sendable (Timeline<NotesEntry>) -> Void) {
        completion(Timeline(entries: [Self.entry()], policy: .never))
    }

    private static func entry() -> NotesEntry {
        let snapshot = try? WidgetSnapshot.current()
        return NotesEntry(date: Date(), noteCount: snapshot?.noteCount ?? 0, newest: snapshot?.latest.first)
    }

    #if !canImport(Darwin)
    /// The widget's process when a simulated device launches it to reload the
    /// timeline (on iOS, WidgetKit's extension host calls the provider).
    public static func runAsWidgetHost() -> Never {
        WidgetHost.run(NotesTimelineProvider(), kind: kind)
    }
    #endif
}

/// The app's side: tell WidgetKit that what the widget shows has changed.
public enum NotesWidgetReload {
    /// Asks for a new timeline of the notes widget.
    public static func request() {
        WidgetCenter.shared.reloadTimelines(ofKind: NotesTimelineProvider.kind)
    }
}
