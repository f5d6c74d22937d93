import AppGroupTesting
import Foundation
import Testing
import TestSupport
import WidgetKit
import WidgetReloads

/// What the device does by itself, as iOS does: it runs a widget's provider after
/// the app's request, one provider at a time, retries deferred reloads when the
/// budget allows, and reloads when a timeline's policy comes due on its clock.
@Suite("WidgetKit runs by itself on a simulated device", .tags(.multiprocess))
struct WidgetSchedulingTests {
    @Test func theProviderRunsAfterTheAppsRequestWithoutTheTestAsking() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("by itself", reload: true)
            #expect(try await waitUntil(seconds: 60) { try notes.shownNotes() == ["note: by itself"] })
            // The daemon records the run once the provider's process has ended, a
            // moment after its timeline shows: wait for the record, then it is the only one.
            #expect(try await waitUntil(seconds: 60) { try !device.widgetReloads.isEmpty })
            #expect(try device.widgetReloads.map(\.outcome) == [.ran])
        }
    }

    // Requests from four app processes at once: each provider holds a marker in
    // the group while it runs and fails if it finds another's (WidgetProbe).
    @Test func twoProvidersOfAKindNeverRunAtOnce() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            let apps = try (0..<4).map { try device.launch(built: "WidgetProbe", ["save", "burst \($0)", "--reload"], as: notes.app) }
            for app in apps { try await app.outcome(timeout: 60).requireSuccess() }
            let done = try await device.processWidgetReloads()
            #expect(done.count == 4)
            #expect(done.allSatisfy { $0.outcome == .ran }, "\(done)")
        }
    }

    // The daemon ends with its device: a provider under way is killed, rather
    // than left running (here it would block for ten minutes) beside a removed device.
    @Test(.tags(.killed)) func removingTheDeviceEndsAProviderUnderWay() async throws {
        let device = try SimulatedDevice()
        let notes = try NotesWidgetDevice(device)
        try device.setForegroundApp(notes.app)
        device.widgetProviderTimeout = 600
        try await notes.save("blocks forever", reload: true)
        #expect(await waitUntil(seconds: 60) { !Self.providers(on: device).isEmpty })
        let running = Self.providers(on: device)
        device.remove()
        #expect(await waitUntil(seconds: 20) { running.allSatisfy(Self.hasEnded) }, "provider \(running) outlived its device")
    }

    /// Live processes launched to reload a widget of `device` (found by their environment).
    static func providers(on device: SimulatedDevice) -> [Int32] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return pids.filter { pid in
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            let variables = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return variables.contains("APP_GROUP_WIDGET_KIND=NotesWidget") && variables.contains("APP_GROUP_CONTAINERS_ROOT=\(device.root.path)")
        }
    }

    /// True when `pid` is gone or a zombie.
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "Z" || state == "X"
    }

    @Test func anAfterPolicyRunsTheProviderAgainAtItsDate() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("hourly", reload: true)
            try await device.processWidgetReloads()
            let first = try #require(try device.widgetTimelines(ofKind: "NotesWidget").first)
            let reloadDate = try #require(first.reloadDate)
            #expect(abs(reloadDate.timeIntervalSince(first.producedAt) - 3_600) < 60, "an hour from the device's now")

            try device.advanceClock(by: 1_800)
            #expect(try await device.processWidgetReloads().isEmpty, "not due yet")
            try device.advanceClock(by: 1_900)
            let due = try await device.processWidgetReloads()
            #expect(due.map(\.outcome) == [.ran])
            #expect(due.map(\.cause) == [.policy])
            #expect(due.allSatisfy { $0.requester == WidgetReload.systemRequester && $0.countedAgainstBudget }, "\(due)")
            let second = try #require(try device.widgetTimelines(ofKind: "NotesWidget").first)
            #expect(second.producedAt > first.producedAt.addingTimeInterval(3_600))

            // A timeline with the .never policy is not reloaded, however far the clock goes.
            try await notes.save("still", reload: true)
            try await device.processWidgetReloads()
            try device.advanceClock(by: 2 * 86_400)
            #expect(try await device.processWidgetReloads().isEmpty)
            #expect(try notes.shownNotes() == ["note: still"])
        }
    }

    @Test func anAtEndPolicyRunsTheProviderAfterTheLastEntry() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            try await notes.save("two entries", reload: true)
            try await device.processWidgetReloads()
            let timeline = try #require(try device.widgetTimelines(ofKind: "NotesWidget").first)
            #expect(timeline.entries.map(\.description) == ["note: two entries", "note: two entries later"])
            #expect(timeline.reloadDate == timeline.entries.last?.date)
            try device.advanceClock(by: 700)
            let due = try await device.processWidgetReloads()
            #expect(due.map(\.cause) == [.policy])
            #expect(due.map(\.outcome) == [.ran])
        }
    }

    // System reloads count against the budget as Apple's do: beyond it the
    // policy's reload is deferred, and runs once the day has passed.
    @Test func aPolicyReloadBeyondTheBudgetIsDeferredThenRuns() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setWidgetDailyBudget(1)
            try await notes.save("hourly", reload: true) // the app in the background: counted
            #expect(try await device.processWidgetReloads().map(\.outcome) == [.ran])
            try device.advanceClock(by: 3_700)
            let deferred = try await device.processWidgetReloads()
            #expect(deferred.map(\.outcome) == [.deferred])
            #expect(deferred.map(\.cause) == [.policy])
            try device.advanceClock(by: 86_400)
            let ran = try await device.processWidgetReloads()
            #expect(ran.map(\.outcome) == [.ran])
            #expect(ran.map(\.cause) == [.deferred])
            #expect(ran.first?.requester == WidgetReload.systemRequester)
        }
    }
}
