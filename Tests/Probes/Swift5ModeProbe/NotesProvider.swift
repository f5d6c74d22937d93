// A widget's provider and the app's side in Swift 5 idiom: completion handlers
// without @Sendable, as Xcode's template writes them.
#if !canImport(Darwin)
import AppGroupFoundation
import Foundation
import class SharedDefaults.UserDefaults // the group's suites, in place of Foundation's
import Security
import WidgetKit

// Xcode's widget template, names and all.
struct SimpleEntry: TimelineEntry, CustomStringConvertible {
    var date: Date
    var text: String
    var description: String { "note: " + text }
}

struct NotesProvider: TimelineProvider {
    static let kind = "Swift5Widget"

    func placeholder(in context: Context) -> SimpleEntry { SimpleEntry(date: Date(), text: "…") }

    func getSnapshot(in context: Context, completion: @escaping (SimpleEntry) -> ()) {
        let entry = SimpleEntry(date: Date(), text: NotesApp.latest())
        completion(entry)
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<Entry>) -> ()) {
        var entries: [SimpleEntry] = []
        entries.append(SimpleEntry(date: Date(), text: NotesApp.latest()))
        let timeline = Timeline(entries: entries, policy: .never)
        completion(timeline)
    }
}

enum NotesApp {
    static let group = "group.com.example.notes"
    static var saves = 0

    static func latest() -> String {
        UserDefaults(suiteName: group)?.string(forKey: "latest") ?? "(none)"
    }

    /// Every store an app reaches from top-level code, in Swift 5 idiom.
    static func save(_ note: String) {
        saves += 1
        UserDefaults(suiteName: group)?.set(note, forKey: "latest")
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            print("no container"); exit(1)
        }
        var coordinationError: NSError?
        var writeError: Error?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: container.appendingPathComponent("note.txt"), options: [],
                                                         error: &coordinationError) { url in
            do { try note.data(using: .utf8)!.write(to: url) } catch { writeError = error }
        }
        if let error = coordinationError ?? writeError.map({ $0 as NSError }) { print("coordination \(error)"); exit(1) }
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "token",
                                    kSecValueData as String: note.data(using: .utf8)!]
        SecItemDelete(query as CFDictionary)
        let status = SecItemAdd(query as CFDictionary, nil)
        CFNotificationCenterPostNotification(CFNotificationCenterGetDarwinNotifyCenter(),
                                             CFNotificationName("com.example.notes.saved" as CFString), nil, nil, true)
        WidgetCenter.shared.reloadTimelines(ofKind: NotesProvider.kind)
        print("app saved \(saves) keychain \(status)")
    }
}
#endif
