import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// Background time holds off suspension until it ends or expires;
/// at expiry the expiration handler runs before the suspension.
@Suite(.tags(.multiprocess)) struct BackgroundTimeTests {
    @Test func anExpiringActivityThatFinishesInTimeDelaysTheSuspension() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let share = try await fixture.probe(["expiring", "--seconds", "1"], as: fixture.notes.shareExtension)
        try await share.requireLine("began", timeout: 60)
        try await fixture.device.moveToBackground(share)
        #expect(try await fixture.device.suspend(share) == .suspended)
        // Suspended only after the work returned (and never expired).
        try await share.requireLine("finished", timeout: 30)
        #expect(!share.outputLines.contains("expired"))
        try await fixture.device.jetsam(share)
    }

    @Test func anActivityThatRunsOutOfTimeHearsItsExpirationBeforeTheSuspension() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.backgroundTimeLimit = 1
        fixture.device.lifecycleSettings = settings
        let share = try await fixture.probe(["expiring", "--seconds", "600"], as: fixture.notes.shareExtension)
        try await share.requireLine("began", timeout: 60)
        try await fixture.device.moveToBackground(share)
        #expect(try await fixture.device.suspend(share) == .suspended)
        // The handler's line was written before its acknowledgement, hence before the stop.
        try await share.requireLine("expired", timeout: 30)
        #expect(!share.outputLines.contains("finished"))
        try await fixture.device.jetsam(share)
    }

    @Test func aTestsBackgroundTaskExpiresBeforeTheSuspensionAndOneEndedDoesNot() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.backgroundTimeLimit = 1
        fixture.device.lifecycleSettings = settings
        let app = try await fixture.probe(["observe"], as: fixture.notes.app)
        let expired = Locked(false)
        _ = try fixture.device.beginBackgroundTask(for: app, withName: "sync") { expired.withLock { $0 = true } }
        try await fixture.device.moveToBackground(app)
        #expect(try await fixture.device.suspend(app) == .suspended)
        #expect(expired.withLock { $0 })
        try await fixture.device.resume(app)

        let ended = Locked(false)
        let task = try fixture.device.beginBackgroundTask(for: app) { ended.withLock { $0 = true } }
        fixture.device.endBackgroundTask(task)
        try await fixture.device.moveToBackground(app)
        #expect(try await fixture.device.suspend(app) == .suspended)
        #expect(!ended.withLock { $0 })
        try await fixture.device.jetsam(app)
    }
}
