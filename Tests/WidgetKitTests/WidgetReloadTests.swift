import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import WidgetKit
import WidgetReloads

/// A notes app and its widget as two targets of one simulated device, each its
/// own process (WidgetProbe): the app saves to the group, the widget's provider
/// reads it when the device processes a reload.
struct NotesWidgetDevice {
    let device: SimulatedDevice
    let app: SimulatedTarget
    let widget: SimulatedTarget

    init(_ device: SimulatedDevice) throws {
        self.device = device
        app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "ABCDE12345",
                                  bundleIdentifier: "com.example.notes", applicationGroups: ["group.com.example.notes"])
        widget = try SimulatedTarget(name: "NotesWidget", kind: .widget, teamIdentifier: "ABCDE12345",
                                     bundleIdentifier: "com.example.notes.widget", applicationGroups: ["group.com.example.notes"])
        try device.installWidget(kind: "NotesWidget", family: .systemMedium,
                                 executable: SimulatedDevice.requireBuiltExecutable(named: "WidgetProbe"), as: widget)
    }

    /// The app's process: saves `note`, reloading the widget when `reload`.
    func save(_ note: String, reload: Bool) async throws {
        try await device.run(built: "WidgetProbe", ["save", note] + (reload ? ["--reload"] : []), as: app).requireSuccess()
    }

    /// The widget's notes, as its last timeline shows them.
    func shownNotes() throws -> [String] {
        try device.widgetTimelines(ofKind: "NotesWidget").flatMap(\.entries).map(\.description)
    }
}

@Suite("WidgetKit reloads across processes", .tags(.multiprocess))
struct WidgetReloadTests {
    // The classic bug: the app saves to the group and forgets to reload its widget.
    @Test func anAppThatForgetsToReloadLeavesTheWidgetStale() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("first", reload: true)
            try await device.processWidgetReloads()
            #expect(try notes.shownNotes() == ["note: first"])

            try await notes.save("second", reload: false) // the bug
            try await device.processWidgetReloads()
            #expect(try notes.shownNotes() == ["note: first"], "nothing asked the widget to reload")
            #expect(try device.widgetReloads.count == 1)
        }
    }

    @Test func theFixedAppReloadsAndTheWidgetShowsTheNewData() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("draft", reload: true)
            try await notes.save("final", reload: true)
            #expect(try device.pendingWidgetReloadCount == 2)
            let done = try await device.processWidgetReloads()
            #expect(done.map(\.outcome) == [.ran, .ran])
            #expect(done.allSatisfy { $0.requester == "com.example.notes" && $0.fromForegroundApp && !$0.countedAgainstBudget })
            let timeline = try #require(try device.widgetTimelines(ofKind: "NotesWidget").first)
            #expect(timeline.entries.map(\.description) == ["note: final"])
            #expect(timeline.family == .systemMedium)
            #expect(timeline.policy == "never")
        }
    }

    @Test func reloadsBeyondTheDailyBudgetAreDeferredUntilTheNextDay() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setWidgetDailyBudget(2)
            // The app in the background: its reloads count against the budget.
            var first: [WidgetReload] = []
            for note in ["one", "two", "three"] {
                try await notes.save(note, reload: true)
                first += try await device.processWidgetReloads()
                try device.advanceClock(by: 60)
            }
            #expect(first.map(\.outcome) == [.ran, .ran, .deferred])
            #expect(try notes.shownNotes() == ["note: two"], "the third reload was deferred")

            try device.advanceClock(by: 3_600)
            try await notes.save("four", reload: true)
            #expect(try await device.processWidgetReloads().map(\.outcome) == [.deferred])

            try device.advanceClock(by: 86_400) // past the day: the budget is restored
            try await notes.save("five", reload: true)
            #expect(try await device.processWidgetReloads().map(\.outcome) == [.ran])
            #expect(try notes.shownNotes() == ["note: five"])

            let reloads = try device.widgetReloads
            #expect(reloads.map(\.outcome) == [.ran, .ran, .deferred, .deferred, .ran])
            #expect(reloads.allSatisfy { $0.requester == "com.example.notes" && !$0.fromForegroundApp })
            #expect(zip(reloads, reloads.dropFirst()).allSatisfy { $0.date < $1.date }, "dates on the device clock")
            #expect(reloads.last!.date > Date().addingTimeInterval(86_400), "the clock was advanced")
            #expect(try device.clock() > Date().addingTimeInterval(86_400))
        }
    }

    @Test func theForegroundAppIsFreeOfTheBudget() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setWidgetDailyBudget(0)
            try await notes.save("background", reload: true)
            try device.setForegroundApp(notes.app)
            try await notes.save("foreground", reload: true)
            #expect(try await device.processWidgetReloads().map(\.outcome) == [.deferred, .ran])
            #expect(try notes.shownNotes() == ["note: foreground"])
        }
    }

    @Test func reloadAllAndConfigurationsAcrossProcesses() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            let listed = try await device.run(built: "WidgetProbe", ["configurations"], as: notes.app).requireSuccess()
            #expect(listed.outputLines == ["NotesWidget systemMedium"])
            try await device.run(built: "WidgetProbe", ["reload", "NoSuchWidget"], as: notes.app).requireSuccess()
            try await device.run(built: "WidgetProbe", ["reload-all"], as: notes.app).requireSuccess()
            let done = try await device.processWidgetReloads()
            #expect(done.map(\.outcome) == [.noWidget, .ran])
            #expect(done.map(\.kind) == ["NoSuchWidget", "NotesWidget"])
            #expect(try notes.shownNotes() == ["note: (none)"])
        }
    }

    @Test func aWidgetProcessNotLaunchedForAReloadRecordsNothing() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            let outcome = try await device.run(built: "WidgetProbe", [], as: notes.widget)
            #expect(outcome.status == 2)
            #expect(try device.widgetTimelines(ofKind: "NotesWidget").isEmpty)
        }
    }

    @Test func badKindsAreRefused() throws {
        try SimulatedDevice.with { device in
            let widget = try SimulatedTarget(name: "W", kind: .widget, teamIdentifier: "ABCDE12345", bundleIdentifier: "com.example.w")
            let probe = URL(fileURLWithPath: "/bin/true")
            #expect(throws: WidgetStoreError.self) { try device.installWidget(kind: "", executable: probe, as: widget) }
            #expect(throws: WidgetStoreError.self) {
                try device.installWidget(kind: String(repeating: "k", count: 101), executable: probe, as: widget)
            }
        }
    }
}
