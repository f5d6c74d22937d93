import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import WidgetKit
import WidgetReloads

/// A share extension of the notes app turned hostile (WidgetProbe `attack`): it
/// rewrites every WidgetKit record of the device it can reach, points the widget
/// registry at a script of its own, forges requests in the app's name, asks the
/// device to move its clock and budget, hands a timeline of a kind it is not,
/// and floods its channel with huge lines. The device's records live where no
/// target may write and a target's requests come over the channel the device made
/// for it, so each attack fails and the test process reads a typed report of it.
@Suite("A hostile target cannot steer the device's WidgetKit", .tags(.hostile, .multiprocess))
struct HostileWidgetTargetTests {
    static let group = "group.com.example.notes"

    /// Runs the attack as the notes app's share extension; its report, one line per try.
    static func attack(_ notes: NotesWidgetDevice) async throws -> [String] {
        let share = try SimulatedTarget(name: "NotesShare", kind: .shareExtension, teamIdentifier: "ABCDE12345",
                                        bundleIdentifier: "com.example.notes.share", applicationGroups: [group])
        let outcome = try await notes.device.run(built: "WidgetProbe", ["attack", group, "NotesWidget"], as: share).requireSuccess()
        #expect(outcome.outputLines.last == "done", "\(outcome)")
        return outcome.outputLines
    }

    // The registry named the executable the device launched: a target pointed it
    // at its own script and the device ran it as the widget, which copied the
    // widget's private file into the group.
    @Test func theRegistryATargetWritesIsNeverLaunched() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            let home = try notes.widget.dataContainer(on: device)
            try FileManager.default.createDirectory(at: home.documents, withIntermediateDirectories: true)
            try Data("the widget's secret".utf8).write(to: home.documents.appendingPathComponent("secret.txt"))
            try await notes.save("real", reload: false)

            let report = try await Self.attack(notes)
            let records = device.root.appendingPathComponent(".device/widgetkit").path
            #expect(report.contains("refused: write \(records)/device.json"), "\(report)")
            #expect(report.contains("refused: list \(device.root.appendingPathComponent(".device").path)"), "\(report)")

            let done = try await device.processWidgetReloads()
            #expect(!done.isEmpty && done.allSatisfy { $0.outcome == .ran }, "\(done)")
            let container = try device.containerLocation(for: Self.group)
            #expect(!FileManager.default.fileExists(atPath: container.appendingPathComponent("stolen.txt").path),
                    "the device ran the target's script as the widget")
            #expect(try notes.shownNotes() == ["note: real"], "the installed widget's provider ran, nothing else")
        }
    }

    // A request said who made it and whether it came from the foreground app, and
    // the device believed it: a background extension reloaded free of budget in
    // the app's name.
    @Test func aTargetCannotForgeItsRequesterOrTheForegroundApp() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try device.setWidgetDailyBudget(0)
            _ = try await Self.attack(notes)
            let done = try await device.processWidgetReloads()
            #expect(!done.isEmpty, "the extension's own requests reached the device")
            for reload in done {
                #expect(reload.requester == "com.example.notes.share", "\(reload)")
                #expect(!reload.fromForegroundApp && reload.outcome == .deferred, "\(reload)")
            }
            #expect(try notes.shownNotes().isEmpty, "no provider ran: the budget is the test's")
        }
    }

    // The device's clock and budget were a file any target could rewrite.
    @Test func aTargetCannotMoveTheClockOrTheBudget() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setWidgetDailyBudget(0)
            let report = try await Self.attack(notes)
            #expect(report.contains("refused: widget.clock") && report.contains("refused: widget.budget"), "\(report)")
            #expect(try device.clock() < Date().addingTimeInterval(3_600), "the clock moved")
            #expect(try await device.processWidgetReloads().allSatisfy { $0.outcome == .deferred }, "the budget moved")
            let refused = device.refusedWidgetRequests.compactMap { error -> String? in
                guard case let .requestRefused(request, from, _) = error, from.contains("NotesShare") else { return nil }
                return request
            }
            #expect(refused.contains("widget.clock") && refused.contains("widget.budget") && refused.contains("widget.install"), "\(refused)")
        }
    }

    // Timelines were files the widget's process wrote, so any target wrote one
    // for any kind; a target's line had no bound.
    @Test func onlyTheLaunchedProviderHandsItsKindsTimeline() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setWidgetDailyBudget(0) // no provider runs: every timeline would be the target's
            let report = try await Self.attack(notes)
            #expect(report.filter { $0 == "refused: widget.timeline" }.count == 3, "\(report)")
            try await device.processWidgetReloads()
            #expect(try device.widgetTimelines(ofKind: "NotesWidget").isEmpty, "a target's timeline was kept")
            let refusals = device.refusedWidgetRequests
            let notLaunched = refusals.filter {
                if case let .requestRefused(request, from, problem) = $0 {
                    return request == "widget.timeline" && from.contains("NotesShare") && problem.contains("did not launch it")
                }
                return false
            }
            let tooLarge = refusals.filter {
                if case let .timelineTooLarge(_, from, bytes, limit) = $0 { return from.contains("NotesShare") && bytes > limit }
                return false
            }
            #expect(notLaunched.count == 1, "\(refusals)")
            #expect(tooLarge.count == 2, "\(refusals)")
        }
    }

    // The same bound holds for the widget's own provider: its reload fails with a
    // problem naming the limit, and the device keeps its previous timeline.
    @Test func aProvidersTimelineBeyondTheLimitFailsItsReload() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("before", reload: true)
            try await notes.save("huge", reload: true)
            let done = try await device.processWidgetReloads()
            #expect(done.map(\.outcome) == [.ran, .failed], "\(done)")
            #expect(done.last?.problem?.contains("\(WidgetStore.timelineLimit)") == true, "\(done)")
            #expect(try notes.shownNotes() == ["note: before"])
        }
    }
}
