// The widget samples of the SignalsBetweenTargets article, compiled by `swift build`
// (Linux: `import WidgetKit` is the package's module there).
// snippet.hide
#if os(Linux)
import WidgetReloads // WidgetHost
import AppGroupFoundation // containerURL: the article says so in its text
// snippet.show
import Foundation
import WidgetKit

struct NoteEntry: TimelineEntry {
    let date: Date
    let note: String
}

struct NotesProvider: TimelineProvider {
    func placeholder(in context: Context) -> NoteEntry { NoteEntry(date: Date(), note: "…") }

    func getSnapshot(in context: Context, completion: @escaping @Sendable (NoteEntry) -> Void) {
        completion(NoteEntry(date: Date(), note: latestNote()))
    }

    func getTimeline(in context: Context, completion: @escaping @Sendable (Timeline<NoteEntry>) -> Void) {
        completion(Timeline(entries: [NoteEntry(date: Date(), note: latestNote())], policy: .never))
    }

    func latestNote() -> String {
        let group = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.notes")
        return group.flatMap { try? String(contentsOf: $0.appendingPathComponent("latest-note.txt"), encoding: .utf8) } ?? ""
    }
}

// The app, after saving to the group:
WidgetCenter.shared.reloadTimelines(ofKind: "NotesWidget")
// snippet.hide

// The widget's executable on Linux (main.swift of a widget target):
func widgetMain() -> Never {
// snippet.show
WidgetHost.run(NotesProvider(), kind: "NotesWidget")
// snippet.hide
}
#endif
