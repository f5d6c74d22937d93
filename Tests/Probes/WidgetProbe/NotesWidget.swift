// Linux only (Package.swift declares this target there): on Darwin these names are
// Apple's own and would reach the real group containers (DarwinGuaranteeTests).
#if !canImport(Darwin)
import Foundation
import WidgetKit // on iOS: Apple's; here the package's WidgetKit module
import AppGroupFoundation // on iOS: Foundation's containerURL

// A notes widget's provider, written as on iOS: it reads the latest note the
// app saved to the App Group container. Only the provider: the SwiftUI view
// that would show the entry stays on Apple's side.
struct NoteEntry: TimelineEntry, CustomStringConvertible {
    let date: Date
    let note: String
    var description: String { "note: \(note)" }
}

struct NotesProvider: TimelineProvider {
    static let kind = "NotesWidget"
    static let group = "group.com.example.notes"

    func placeholder(in context: Context) -> NoteEntry {
        NoteEntry(date: Date(), note: "…")
    }

    func getSnapshot(in context: Context, completion: @escaping @Sendable (NoteEntry) -> Void) {
        completion(NoteEntry(date: Date(), note: Self.latestNote()))
    }

    func getTimeline(in context: Context, completion: @escaping @Sendable (Timeline<NoteEntry>) -> Void) {
        let now = Date()
        let note = Self.latestNote()
        switch note {
        case "never completes": return // a provider that hangs, for the device's deadline
        case "blocks forever": while true { Thread.sleep(forTimeInterval: 1_000) } // past the host's own deadline
        case "huge": // beyond the device's limit on a timeline
            completion(Timeline(entries: [NoteEntry(date: now, note: String(repeating: "h", count: 300_000))], policy: .never))
        case "hourly": // a timeline the system reloads an hour from now
            completion(Timeline(entries: [NoteEntry(date: now, note: note)], policy: .after(now.addingTimeInterval(3_600))))
        case "two entries": // shown now, then in ten minutes; reloaded after the last
            completion(Timeline(entries: [NoteEntry(date: now, note: note), NoteEntry(date: now.addingTimeInterval(600), note: note + " later")],
                                policy: .atEnd))
        default:
            if note.hasPrefix("burst") { Self.provideAlone() }
            completion(Timeline(entries: [NoteEntry(date: now, note: note)], policy: .never))
        }
    }

    /// Holds a marker in the group for a moment: a second provider of this kind
    /// running at the same time finds it and fails (the device must run one at a time).
    static func provideAlone() {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else { return }
        let marker = container.appendingPathComponent("provider-running")
        do { try Data().write(to: marker, options: .withoutOverwriting) } catch {
            FileHandle.standardError.write(Data("another provider of \(kind) is running\n".utf8))
            exit(3)
        }
        Thread.sleep(forTimeInterval: 0.2)
        try? FileManager.default.removeItem(at: marker)
    }

    static func latestNote() -> String {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
              let data = try? Data(contentsOf: container.appendingPathComponent("latest-note.txt")) else { return "(none)" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The app's side: saves a note to the group and, when the app is fixed, reloads the widget.
enum NotesApp {
    static func save(_ note: String, reload: Bool) throws {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: NotesProvider.group) else {
            throw CocoaError(.fileNoSuchFile)
        }
        try Data(note.utf8).write(to: container.appendingPathComponent("latest-note.txt"), options: .atomic)
        if reload {
            WidgetCenter.shared.reloadTimelines(ofKind: NotesProvider.kind)
        }
    }
}
#endif
