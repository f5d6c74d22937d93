import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// An NSFilePresenter of a suspended target
/// does not block a coordinated write in another target (iOS since 8.2); its
/// request waits until the target resumes, then reaches it.
@Suite(.tags(.multiprocess), .simulatedDevices) struct SuspendedPresenterTests {
    @Test func aSuspendedAppsPresenterDoesNotBlockTheExtensionsWrite() async throws {
        let fixture = try LifecycleFixture(name: "SuspendedPresenter")
        defer { fixture.device.remove() }
        let file = fixture.group.appendingPathComponent("queue.json")
        let app = try await fixture.probe(["present", "--file", file.path], as: fixture.notes.app)
        try await fixture.device.moveToBackground(app)
        #expect(try await fixture.device.suspend(app) == .suspended)

        // The extension, sandboxed, writes: it sees the app stopped and does not wait for it.
        let writer = try await fixture.probe(["save", "--file", file.path], as: fixture.notes.shareExtension)
        try await writer.requireLine("written", timeout: 20)
        #expect(try String(contentsOf: file, encoding: .utf8) == "saved")
        #expect(!app.outputLines.contains("relinquish"), "a suspended process ran code: \(app.outputLines)")

        try await fixture.device.resume(app)
        try await app.requireLine("relinquish", timeout: 20)
        try await app.requireLine("reacquire", timeout: 20)
        // The app sleeps until killed: the test ends it (the device would, and the
        // trait fails the test if one outlived it).
        app.kill()
        #expect(await app.outcome(timeout: 30).signal == SIGKILL)
    }
}
