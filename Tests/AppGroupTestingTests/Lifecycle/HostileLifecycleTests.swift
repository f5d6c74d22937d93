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

    /// Finding guarded: the channel searched its whole buffer again after every
    /// read, so megabytes without a newline cost the test process minutes of CPU,
    /// and a line of any length was kept whole.
    @Test func aFloodWithoutNewlinesIsDroppedAsItArrivesAndReported() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.listenerGrace = 120 // the old reader took minutes to reach the hello after the flood
        fixture.device.lifecycleSettings = settings
        let app = try await fixture.python(Self.flooder, [String(Self.flood)], as: fixture.notes.app)
        try await fixture.device.moveToBackground(app)
        try await app.requireLine("post UIApplicationDidEnterBackgroundNotification", timeout: 60)
        let refusals = fixture.device.failures.filter { $0.contains("lifecycle channel") }
        #expect(refusals.count == 1, "\(fixture.device.failures)")
        #expect(refusals.first?.contains("longer than \(1 << 20) bytes") == true, "\(refusals)")
        #expect(refusals.first?.contains(fixture.notes.app.name) == true, "\(refusals)")
        try await fixture.device.jetsam(app)
    }

    /// 8 MiB: eight times the channel's line limit (the old reader took over two minutes for 4 MiB).
    static let flood = 8 << 20

    /// Floods the channel with one line of `argv[1]` bytes, then says hello and
    /// acknowledges each post, as the package's listener does.
    static let flooder = """
    import os, sys
    fd = int(os.environ["APPGROUP_LIFECYCLE_FD"])
    size = int(sys.argv[1])
    block = b"x" * 65536
    while size > 0:
        size -= os.write(fd, block[:min(size, len(block))])
    os.write(fd, b"\\nhello\\n")
    print("ready", flush=True)
    pending = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        pending += chunk
        while b"\\n" in pending:
            line, pending = pending.split(b"\\n", 1)
            sequence, command, argument = line.decode().split(" ", 2)
            print(command, argument, flush=True)
            os.write(fd, ("ack " + sequence + "\\n").encode())
    """

    /// Finding guarded: a target's standard output was kept whole in the test
    /// process, so a target printing without end grew it without bound.
    @Test func aTargetsEndlessOutputIsReadButKeptBounded() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let python = try #require(Python.executable)
        // 80 MiB to standard output, then a last line: more than the 64 MiB kept.
        let script = "import sys\nblock = 'x' * 1048575 + '\\n'\nfor _ in range(80): sys.stdout.write(block)\nsys.stdout.write('done\\n')"
        let process = try fixture.device.launch(python, ["-c", script], as: fixture.notes.app, sandbox: .unenforced)
        let outcome = process.wait(timeout: 120)
        #expect(outcome.status == 0 && !outcome.timedOut, "\(outcome.standardError)")
        #expect(outcome.standardOutput.utf8.count == 64 << 20)
    }
}
