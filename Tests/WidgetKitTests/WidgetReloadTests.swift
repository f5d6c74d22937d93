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
            let done = try await device.processWidgetReloads()
            #expect(done.map(\.outcome) == [.ran, .ran])
            #expect(done.allSatisfy { $0.requester == "com.example.notes" && $0.fromForegroundApp && !$0.countedAgainstBudget })
            let timeline = try #require(try device.widgetTimelines(ofKind: "NotesWidget").first)
            #expect(timeline.entries.map(\.description) == ["note: final"])
            #expect(timeline.family == .systemMedium)
            #expect(timeline.policy == "never")
        }
    }

    @Test func aReloadRequestAndTheProvidersRunAreInTheTrace() async throws {
        let device = try SimulatedDevice(name: "WidgetTrace", trace: .whenKept)
        defer { device.remove() }
        let notes = try NotesWidgetDevice(device)
        try device.setForegroundApp(notes.app)
        try await notes.save("traced", reload: true)
        #expect(try await device.processWidgetReloads().map(\.outcome) == [.ran])
        let url = try device.writeTrace(to: device.scratch.appendingPathComponent("trace.json"))
        #expect(TraceValidator.problems(inFile: url) == [])
        let events = try TraceValidator.events(inFile: url)
        var names: [Int: String] = [:]
        for event in events where event["name"] as? String == "process_name" {
            names[event["pid"] as? Int ?? 0] = (event["args"] as? [String: Any])?["name"] as? String
        }
        let request = try #require(events.first { $0["cat"] as? String == "widget.reload" })
        let run = try #require(events.first { $0["cat"] as? String == "widget.timeline" })
        #expect(names[request["pid"] as? Int ?? 0] == "Notes" && request["name"] as? String == "NotesWidget", "\(request)")
        #expect(names[run["pid"] as? Int ?? 0] == "NotesWidget" && run["name"] as? String == "NotesWidget", "\(run)")
        #expect((run["args"] as? [String: Any])?["entries"] as? String == "1")
        #expect(try #require(request["ts"] as? Double) < (try #require(run["ts"] as? Double)))
    }

    // On iOS a reload beyond the budget is not lost: WidgetKit runs it once the
    // budget allows, without the app asking again.
    @Test func reloadsBeyondTheDailyBudgetAreDeferredThenRunWhenTheBudgetAllows() async throws {
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

            try device.advanceClock(by: 86_400) // past the day: the budget allows one again
            let retried = try await device.processWidgetReloads()
            #expect(retried.map(\.outcome) == [.ran], "the deferred reloads ran once, by themselves")
            #expect(retried.map(\.cause) == [.deferred])
            #expect(try notes.shownNotes() == ["note: four"])
            try await notes.save("five", reload: true)
            #expect(try await device.processWidgetReloads().map(\.outcome) == [.ran])
            #expect(try notes.shownNotes() == ["note: five"])

            let reloads = try device.widgetReloads
            #expect(reloads.map(\.outcome) == [.ran, .ran, .deferred, .deferred, .ran, .ran])
            #expect(reloads.map(\.cause) == [.request, .request, .request, .request, .deferred, .request])
            #expect(reloads.allSatisfy { $0.requester == "com.example.notes" && !$0.fromForegroundApp })
            let retry = reloads[4]
            #expect(retry.date == reloads[2].date, "the retry names the first deferred request")
            #expect(try #require(retry.ranAt) > reloads[3].date.addingTimeInterval(86_000), "it ran when the clock allowed it")
            #expect(reloads.filter(\.countedAgainstBudget).count == 4)
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
            // Where iOS is silent, the record says why and what to do.
            #expect(done.first?.problem?.contains("no widget of that kind is installed on the device (installed: \"NotesWidget\")") == true,
                    "\(done)")
            #expect(try notes.shownNotes() == ["note: (none)"])
        }
    }

    // The request is posted on the device's signal table: another process of the
    // device (here a Darwin notify observer) hears it; a process of another device does not.
    @Test func aReloadRequestIsPostedOnTheDevicesSignalTable() async throws {
        try await SimulatedDevice.with { device in
            try await SimulatedDevice.with(name: "OtherDevice") { other in
                let notes = try NotesWidgetDevice(device)
                let arguments = ["wrapper", "--name", "widgetkit.reload", "--seconds", "60"]
                let listener = try device.launch(built: "SignalProbe", arguments, as: notes.widget)
                let elsewhere = try other.launch(built: "SignalProbe", arguments, as: notes.widget)
                defer { listener.kill(); elsewhere.kill() }
                #expect(listener.waitForLine("ready"))
                #expect(elsewhere.waitForLine("ready"))
                try await notes.save("posted", reload: true)
                #expect(listener.waitForLine("woke widgetkit.reload"))
                // A reload on the other device wakes its listener once: this device's post never reached it.
                try await other.run(built: "WidgetProbe", ["reload", "NotesWidget"], as: notes.app).requireSuccess()
                #expect(elsewhere.waitForLine("woke widgetkit.reload"))
                #expect(elsewhere.outputLines.filter { $0 == "woke widgetkit.reload" }.count == 1, "\(elsewhere.outputLines)")
            }
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

    // Every wait has a deadline: a provider that never calls its completion is
    // killed at the device's provider timeout and the reload is recorded as failed.
    @Test(.tags(.killed)) func aProviderThatNeverCompletesFailsTheReloadAtTheDeadline() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            device.widgetProviderTimeout = 3
            try await notes.save("never completes", reload: true)
            let failed = try await device.processWidgetReloads()
            #expect(failed.map(\.outcome) == [.failed])
            #expect(failed.first?.problem?.contains("NotesWidget") == true, "\(failed)")
            try await notes.save("after", reload: true)
            #expect(try await device.processWidgetReloads().map(\.outcome) == [.ran])
            #expect(try notes.shownNotes() == ["note: after"])
        }
    }

    @Test(.tags(.hostile)) func aCorruptRequestIsATypedErrorNamingItsFile() async throws {
        try await SimulatedDevice.with { device in
            _ = try NotesWidgetDevice(device)
            let requests = device.root.appendingPathComponent(".device/widgetkit/requests")
            try FileManager.default.createDirectory(at: requests, withIntermediateDirectories: true)
            try Data("not json".utf8).write(to: requests.appendingPathComponent("00000000000000000001-1-1.json"))
            await #expect {
                try await device.processWidgetReloads()
            } throws: { error in
                "\(error)".contains("00000000000000000001-1-1.json") && "\(error)".contains("remove it")
            }
        }
    }

    // A link planted where the device's WidgetKit records belong is refused: no
    // record is written through it.
    @Test(.tags(.hostile)) func aLinkPlantedAtTheRecordsIsRefused() throws {
        try SimulatedDevice.with { device in
            let elsewhere = device.outside.appendingPathComponent("planted")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            let records = device.root.appendingPathComponent(".device/widgetkit")
            try FileManager.default.createDirectory(at: records.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: records, withDestinationURL: elsewhere)
            let widget = try SimulatedTarget(name: "W", kind: .widget, teamIdentifier: "ABCDE12345", bundleIdentifier: "com.example.w")
            expectSimulationError(\.widgetRecords) {
                try device.installWidget(kind: "NotesWidget", executable: URL(fileURLWithPath: "/bin/true"), as: widget)
            }
            #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("device.json").path))
        }
    }

    @Test func badKindsAreRefused() throws {
        try SimulatedDevice.with { device in
            let widget = try SimulatedTarget(name: "W", kind: .widget, teamIdentifier: "ABCDE12345", bundleIdentifier: "com.example.w")
            let probe = URL(fileURLWithPath: "/bin/true")
            expectSimulationError(\.widgetRecords) { try device.installWidget(kind: "", executable: probe, as: widget) }
            expectSimulationError(\.widgetRecords) {
                try device.installWidget(kind: String(repeating: "k", count: 101), executable: probe, as: widget)
            }
        }
    }
}

/// An app's bad kind: `reloadTimelines(ofKind:)` returns nothing, so the kind is
/// reported on stderr and no request is recorded.
@Suite("WidgetCenter refuses bad kinds", .tags(.hostile, .multiprocess))
struct WidgetCenterBadKindTests {
    @Test func emptyAndOverLongKindsAreReportedAndRecordNothing() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            for kind in ["", String(repeating: "k", count: 101)] {
                let outcome = try await device.run(built: "WidgetProbe", ["reload", kind], as: notes.app).requireSuccess()
                #expect(outcome.standardError.contains("nothing was reloaded"), "\(outcome.standardError)")
            }
            #expect(try await device.processWidgetReloads().isEmpty)
            #expect(try device.pendingWidgetReloadCount == 0)
        }
    }
}

extension SimulationError {
    /// The widget records' refusal this error carries, if it is one.
    var widgetRecords: WidgetStoreError? { if case .widgets(let error) = self { error } else { nil } }
}
