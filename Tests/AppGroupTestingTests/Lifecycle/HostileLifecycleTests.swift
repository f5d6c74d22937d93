import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// Hostile targets for the lifecycle: nothing a target does makes the device hang.
@Suite(.tags(.multiprocess, .hostile)) struct HostileLifecycleTests {
    /// Finding guarded: the WAL check read the database named by a locked "-shm"
    /// with a blocking open, so a FIFO planted under that name hung the suspension.
    @Test(.tags(.killed)) func aFIFOPlantedAsTheDatabaseOfALockedShmDoesNotHangTheSuspension() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let database = fixture.group.appendingPathComponent("planted.sqlite").path
        #expect(mkfifo(database, 0o644) == 0)
        let widget = try await fixture.probe(["lock", "--kind", "posix", "--file", database + "-shm"], as: fixture.notes.widget)
        try await fixture.device.moveToBackground(widget)
        guard case .killed(let report) = try await fixture.device.suspend(widget) else {
            Issue.record("a lock on a -shm whose database is a FIFO was let through")
            return
        }
        #expect(report.heldLocks.map(\.path) == [database + "-shm"])
    }

    @Test func anObserverThatNeverReturnsIsATimeoutNamingTheNotification() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.acknowledgementTimeout = 1
        fixture.device.lifecycleSettings = settings
        let app = try await fixture.probe(["observe-stuck"], as: fixture.notes.app)
        do {
            try await fixture.device.moveToBackground(app)
            Issue.record("a stuck observer was acknowledged")
        } catch SimulationError.lifecycle(let error) {
            #expect(error.problem == .noAcknowledgement(notification: LifecycleNotificationName.didEnterBackground, seconds: 1))
            #expect(error.description.contains("UIApplicationDidEnterBackgroundNotification"))
        }
        try await fixture.device.jetsam(app)
    }
}
