import AppGroupTesting
import Foundation
import NotesShared
import Testing

/// The widget's timeline after the app saves: the widget runs its provider in its
/// own process when WidgetKit (here the simulated device) reloads it, and shows
/// what the app published in the group. The classic bug, as a pair: the app that
/// saves without reloading leaves the widget on its old timeline; the fixed app
/// calls `reloadTimelines(ofKind:)` and the widget shows the new notes.
@Suite(.simulatedDevices, .enabled(if: NotesTargets.canRun, Comment(rawValue: NotesTargets.whyNot)))
struct WidgetTests {
    let notes: NotesTargets

    init() throws {
        notes = try NotesTargets()
    }

    /// A device with the widget installed, one note shared and received, and the
    /// widget showing it.
    func deviceShowingOneNote(_ device: SimulatedDevice) async throws {
        try device.installWidget(kind: NotesTimelineProvider.kind, executable: SimulatedDevice.requireBuiltExecutable(named: "NotesWidget"),
                                 as: notes.widget)
        try device.setForegroundApp(notes.app) // the user has the app open: its reloads are free of budget
        try await device.run(built: "NotesShareExtension", ["share", "https://example.com/1"], as: notes.shareExtension).requireSuccess()
        try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
        try await device.processWidgetReloads()
        #expect(try shown(device) == ["notes 1, newest https://example.com/1"])
    }

    /// What the widget's last timeline shows.
    func shown(_ device: SimulatedDevice) throws -> [String] {
        try device.widgetTimelines(ofKind: NotesTimelineProvider.kind).flatMap(\.entries).map(\.description)
    }

    @Test func anAppThatSavesWithoutReloadingLeavesTheWidgetStale() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            try await deviceShowingOneNote(device)
            try await device.run(built: "NotesShareExtension", ["share", "https://example.com/2"], as: notes.shareExtension).requireSuccess()
            try await device.run(built: "NotesApp", ["launch", "--without-widget-reload"], as: notes.app).requireSuccess()
            try await device.processWidgetReloads()
            // The snapshot in the group has two notes; the widget still shows one.
            #expect(try notes.widget.run(on: device) { try WidgetSnapshot.current()?.noteCount } == 2)
            #expect(try shown(device) == ["notes 1, newest https://example.com/1"], "nothing asked WidgetKit to reload")
        }
    }

    @Test func anAppThatReloadsTheTimelinesShowsTheNewNotes() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            try await deviceShowingOneNote(device)
            try await device.run(built: "NotesShareExtension", ["share", "https://example.com/2"], as: notes.shareExtension).requireSuccess()
            try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            let reloads = try await device.processWidgetReloads()
            #expect(reloads.map(\.outcome) == [.ran])
            #expect(reloads.map(\.requester) == [notes.app.bundleIdentifier])
            #expect(try shown(device) == ["notes 2, newest https://example.com/2"])
        }
    }
}
