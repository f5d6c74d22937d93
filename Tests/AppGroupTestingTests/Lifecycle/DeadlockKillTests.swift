import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// 0xdead10cc. A target suspended while it holds a lock on a
/// file in an App Group container is killed, and the kill is recorded with the
/// file and the kind of lock; a lock in its own data container, or none, is fine.
@Suite(.tags(.multiprocess, .killed)) struct DeadlockKillTests {
    static let sqlite = """
    import sqlite3, sys, time
    path, mode, transaction = sys.argv[1:4]
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=" + mode)
    db.execute("CREATE TABLE IF NOT EXISTS notes(body TEXT)")
    if transaction == "write":
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO notes VALUES ('draft')")
    else:
        db.execute("SELECT count(*) FROM notes").fetchall()
    print("ready", flush=True)
    time.sleep(600)
    """

    func suspendAfterBackground(_ process: LaunchedProcess, on device: SimulatedDevice) async throws -> SimulatedDevice.SuspensionResult {
        try await device.moveToBackground(process)
        return try await device.suspend(process)
    }

    @Test(arguments: ["posix", "ofd", "flock"])
    func aRawLockOnAGroupFileGetsTheTargetKilled(kind: String) async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let file = fixture.group.appendingPathComponent("notes.lock").path
        let widget = try await fixture.probe(["lock", "--kind", kind, "--file", file], as: fixture.notes.widget)
        let result = try await suspendAfterBackground(widget, on: fixture.device)
        guard case .killed(let report) = result else {
            Issue.record("a \(kind) lock on \(file) survived suspension")
            return
        }
        #expect(report.reason == .heldLockWhileSuspended)
        #expect(report.reason.code == "0xdead10cc")
        #expect(report.target == fixture.notes.widget)
        #expect(report.heldLocks.map(\.path) == [file])
        let expectedKind = ["posix": "POSIX record lock", "ofd": "open-file-description lock", "flock": "flock"][kind]
        #expect(report.heldLocks.first?.kind == expectedKind)
        #expect(report.allowedDirectories.first == (try fixture.notes.widget.dataContainer(on: fixture.device)).home.path)
        #expect(widget.wait(timeout: 30).signal == SIGKILL)
        #expect(fixture.device.terminations.first?.reason == .heldLockWhileSuspended)
    }

    @Test func aLockInItsOwnDataContainerIsAllowed() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let home = try fixture.notes.widget.dataContainer(on: fixture.device)
        let file = home.documents.appendingPathComponent("own.lock").path
        let widget = try await fixture.probe(["lock", "--kind", "posix", "--file", file], as: fixture.notes.widget)
        #expect(try await suspendAfterBackground(widget, on: fixture.device) == .suspended)
        try await fixture.device.jetsam(widget)
    }

    @Test func suspendedInsideACoordinatedWriteIsKilled() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let file = fixture.group.appendingPathComponent("draft.txt").path
        let share = try await fixture.probe(["coordinated-write", "--file", file], as: fixture.notes.shareExtension)
        try await share.requireLine("inside", timeout: 60)
        guard case .killed(let report) = try await suspendAfterBackground(share, on: fixture.device) else {
            Issue.record("suspended inside a coordinated write and not killed")
            return
        }
        // The package's coordination locks: files of its coordination tree on the device
        // (iOS's filecoordinationd holds no file lock of the process; the package's
        // protocol does, so iOS's rule applies to them as it would to the process's own).
        #expect(!report.heldLocks.isEmpty)
        #expect(report.heldLocks.allSatisfy { $0.path.hasPrefix(fixture.device.root.path + "/") }, "\(report)")
        // The report names the item the lock protects, not only the hashed lock file.
        #expect(report.heldLocks.contains { $0.item == file && $0.exclusive }, "\(report)")
        #expect(report.description.contains("\(file) (coordinated; its lock file "), "\(report)")
    }

    @Test func suspendedBetweenSharedDefaultsOperationsIsNot() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let app = try await fixture.probe(["defaults-idle", "--suite", NotesExample.groupIdentifier], as: fixture.notes.app)
        try await app.requireLine("saved", timeout: 60)
        #expect(try await suspendAfterBackground(app, on: fixture.device) == .suspended)
        try await fixture.device.resume(app)
        try await fixture.device.terminate(app)
    }

    @Test(.tags(.python), arguments: [("delete", "write", true), ("delete", "read", false), ("wal", "read", false), ("wal", "write", true)])
    func aSQLiteDatabaseInTheGroup(mode: String, transaction: String, killed: Bool) async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let database = fixture.group.appendingPathComponent("notes.sqlite").path
        let widget = try await fixture.python(Self.sqlite, [database, mode, transaction], as: fixture.notes.widget)
        let result = try await suspendAfterBackground(widget, on: fixture.device)
        if killed {
            guard case .killed(let report) = result else {
                Issue.record("\(mode) mode with a \(transaction) transaction open was not killed")
                return
            }
            let suffix = mode == "wal" ? "-shm" : ""
            #expect(report.heldLocks.contains { $0.path == database + suffix && $0.exclusive && $0.kind == "POSIX record lock" })
        } else {
            #expect(result == .suspended, "\(mode) mode, \(transaction): \(result)")
            try await fixture.device.jetsam(widget)
        }
    }

    @Test(.tags(.python)) func theLenientRuleLetsAWALWriteTransactionThrough() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        var settings = fixture.device.lifecycleSettings
        settings.lockRule.exemptsWALWriteTransactions = true
        fixture.device.lifecycleSettings = settings
        let database = fixture.group.appendingPathComponent("notes.sqlite").path
        let widget = try await fixture.python(Self.sqlite, [database, "wal", "write"], as: fixture.notes.widget)
        #expect(try await suspendAfterBackground(widget, on: fixture.device) == .suspended)
        try await fixture.device.jetsam(widget)
    }
}
