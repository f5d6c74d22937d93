import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import WidgetKit
import WidgetReloads

/// How a process's reload reaches the device: a target's over the channel the
/// device made for it (from any thread, a lifecycle handler's included), a process
/// without a channel through the device's records.
@Suite("WidgetKit requests reach the device", .tags(.multiprocess))
struct WidgetChannelTests {
    // A lifecycle observer runs on the thread that reads the channel, so it cannot
    // wait for the device's answer; the device handles the request before it reads
    // the acknowledgement of the notice, so the request is there when
    // moveToBackground returns.
    @Test func aReloadFromADidEnterBackgroundObserverReachesTheDevice() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try device.setForegroundApp(notes.app)
            let app = try device.launch(built: "WidgetProbe", ["reload-in-background", "NotesWidget"], as: notes.app)
            defer { app.kill() }
            #expect(app.waitForLine("ready"))
            try await device.moveToBackground(app)
            #expect(app.waitForLine("reloaded"))
            let done = try await device.processWidgetReloads()
            #expect(done.map(\.outcome) == [.ran], "\(done)")
            #expect(done.first?.requester == "com.example.notes" && done.first?.fromForegroundApp == true, "\(done)")
        }
    }

    // A program launched without a target has no channel and no sandbox: it
    // records its request in the device's records itself.
    @Test func aProcessWithoutAChannelRecordsItsRequestItself() async throws {
        try await SimulatedDevice.with { device in
            let notes = try NotesWidgetDevice(device)
            try await device.run(built: "WidgetProbe", ["reload", "NotesWidget"], as: nil).requireSuccess()
            let done = try await device.processWidgetReloads()
            #expect(done.map(\.outcome) == [.ran], "\(done)")
            #expect(done.first?.requester.hasPrefix("unknown") == true, "\(done)")
            _ = notes
        }
    }
}
