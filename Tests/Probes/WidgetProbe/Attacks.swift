// Linux only (Package.swift declares this target there).
#if !canImport(Darwin)
import AppGroupContainer // DeviceChannel: the raw asks a hostile target can make
import AppGroupFoundation
import Foundation
import WidgetKit
import WidgetReloads // the subjects a widget's requests use

// A hostile target of the device (the WidgetKit tests run it as a share
// extension): it tries every way to steer the device's WidgetKit through what it
// may write or say, and prints what each try got, one line each.
enum WidgetAttacks {
    /// `attack <group> <kind>`: every attack on the device's WidgetKit at once.
    static func run(group: String, kind: String) {
        let root = ContainerResolver.root()
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            print("no container for \(group)")
            exit(1)
        }
        let bundle = ProcessInfo.processInfo.environment[Entitlements.EnvironmentKey.bundleIdentifier] ?? "?"
        // A script of its own, which would copy the widget's secret into the group
        // if the device ran it as the widget.
        let script = container.appendingPathComponent("steal.sh")
        let stolen = container.appendingPathComponent("stolen.txt")
        attempt("script \(script.path)") {
            try Data("#!/bin/sh\ncat \"$HOME/Documents/secret.txt\" > \"\(stolen.path)\"\n".utf8).write(to: script)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        }
        let hex = kind.utf8.map { String(format: "%02x", $0) }.joined()
        let state = """
            {"clockOffset": 10000000, "dailyBudget": 100000, "foregroundApp": "\(bundle)",
             "widgets": [{"kind": "\(kind)", "family": 1, "bundleIdentifier": "com.example.notes.widget", "executable": "\(script.path)"}]}
            """
        let request = """
            {"kind": "\(kind)", "requester": "com.example.notes", "date": \(Date().timeIntervalSince1970), "fromForegroundApp": true}
            """
        let timeline = forgedTimeline(kind: kind, note: "forged")
        // The device's records where they are and where they were: the registry
        // pointed at the script, a request in the app's name, a timeline.
        for records in [".device/widgetkit", ".coordination/widgetkit"].map({ root.appendingPathComponent($0) }) {
            for (relative, text) in [("device.json", state), ("requests/00000000000000000001-1-1.json", request),
                                     ("timelines/\(hex).json", timeline)] {
                let file = records.appendingPathComponent(relative)
                attempt("write \(file.path)") {
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(text.utf8).write(to: file)
                }
            }
        }
        // Everything already in the device's private tree, rewritten.
        let device = root.appendingPathComponent(".device")
        attempt("list \(device.path)") {
            let found = FileManager.default.enumerator(atPath: device.path)?.allObjects as? [String] ?? []
            if found.isEmpty { throw CocoaError(.fileReadNoPermission) }
            for name in found { try Data("{}".utf8).write(to: device.appendingPathComponent(name)) }
        }
        // On the channel: a reload with forged fields, the device's settings, a
        // timeline of a kind it is not, and huge lines.
        ask(WidgetStore.reloadSubject, #"{"kind": "\#(kind)", "requester": "com.example.notes", "fromForegroundApp": true}"#)
        ask("widget.clock", #"{"clockOffset": 10000000}"#)
        ask("widget.budget", #"{"dailyBudget": 100000}"#)
        ask("widget.install", #"{"kind": "\#(kind)", "executable": "\#(script.path)"}"#)
        ask(WidgetStore.timelineSubject, timeline)
        for _ in 0..<2 {
            ask(WidgetStore.timelineSubject, forgedTimeline(kind: kind, note: String(repeating: "x", count: WidgetStore.timelineLimit)))
        }
        print("done")
    }

    static func forgedTimeline(kind: String, note: String) -> String {
        let now = Date().timeIntervalSince1970
        return """
            {"kind": "\(kind)", "family": 1, "entryDates": [\(now)], "entryDescriptions": ["note: \(note)"], "policy": "never", "producedAt": \(now)}
            """.replacingOccurrences(of: "\n", with: " ")
    }

    static func attempt(_ what: String, _ body: () throws -> Void) {
        do {
            try body()
            print("done: \(what)")
        } catch {
            print("refused: \(what)")
        }
    }

    static func ask(_ subject: String, _ payload: String) {
        switch DeviceChannel.ask(subject, payload) {
        case .accepted: print("accepted: \(subject)")
        case .refused: print("refused: \(subject)")
        case .sent, .noChannel, .unanswered: print("unanswered: \(subject)")
        }
    }
}
#endif
