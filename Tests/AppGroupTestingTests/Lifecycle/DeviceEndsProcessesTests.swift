import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// A device leaves nothing running: every process it launched ends when it ends,
/// whatever its state, with every process that one started; and what could not
/// be ended is named as a leak.
@Suite(.tags(.multiprocess, .killed)) struct DeviceEndsProcessesTests {
    @Test("a stopped target that ignores SIGTERM, with a grandchild in its group and one in a session of its own, is gone with them after the device ends")
    func stoppedFamilyEnds() async throws {
        let fixture = try LifecycleFixture(name: "EndsFamily")
        defer { fixture.device.remove() }
        let app = try await fixture.probe(["family"], as: fixture.notes.app)
        let grandchildren = Self.grandchildren(of: app)
        try #require(grandchildren.count == 2, "\(app.outputLines) \(app.standardError)")
        let family = [app.processIdentifier] + grandchildren
        let started = try family.map { try #require(ProcessEntry(pid: $0), "no process \($0)") }
        // Stopped as a suspended app is, each of them.
        for pid in family { kill(pid, SIGSTOP) }
        #expect(eventually(seconds: 30) { family.allSatisfy { ProcessEntry(pid: $0)?.state == "T" } },
                "\(family.map { ProcessEntry(pid: $0).map { "\($0.pid) \($0.state)" } ?? "gone" })")

        fixture.device.remove()

        #expect(fixture.device.leakedProcesses.isEmpty, "\(fixture.device.leakedProcesses)")
        for entry in started {
            #expect(entry.isGone, "process \(entry.pid) is still there: \(ProcessEntry(pid: entry.pid).map { "state \($0.state), parent \($0.parent)" } ?? "")")
        }
        let end = await app.outcome(timeout: 30)
        #expect(end.signal == SIGKILL, "\(end)")
    }

    @Test("grandchildren whose target already exited (one of them in a session of its own) are found and ended with the device")
    func orphansEnd() async throws {
        let fixture = try LifecycleFixture(name: "EndsOrphans")
        defer { fixture.device.remove() }
        let app = try await fixture.probe(["family", "--orphan", "yes"], as: fixture.notes.app)
        let grandchildren = Self.grandchildren(of: app)
        try #require(grandchildren.count == 2, "\(app.outputLines) \(app.standardError)")
        let started = try grandchildren.map { try #require(ProcessEntry(pid: $0), "no process \($0)") }
        #expect(app.hasExited(within: 30), "the target did not exit: \(app.outputLines)")
        #expect(started.allSatisfy { !$0.isGone }, "a grandchild did not outlive its parent")

        fixture.device.remove()

        #expect(fixture.device.leakedProcesses.isEmpty, "\(fixture.device.leakedProcesses)")
        for entry in started {
            #expect(entry.isGone, "process \(entry.pid) is still there: \(ProcessEntry(pid: entry.pid).map { "state \($0.state), parent \($0.parent)" } ?? "")")
        }
    }

    @Test("the leak check names a process the device did not end (here because its ending was switched off)")
    func leakCheckNamesTheProcess() async throws {
        let fixture = try LifecycleFixture(name: "LeakCheck")
        let app = try await fixture.probe(["observe"], as: fixture.notes.app)
        defer { app.kill() }
        fixture.device.endsProcessesAtRemoval = false
        fixture.device.remove()
        let leaks = fixture.device.leakedProcesses
        #expect(leaks.count == 1 && leaks.first?.contains("process \(app.processIdentifier) ") == true, "\(leaks)")
        #expect(leaks.first?.contains("LifecycleProbe observe") == true, "\(leaks)")
        #expect(fixture.device.failures.contains { $0.contains("process \(app.processIdentifier) ") }, "\(fixture.device.failures)")
        app.kill()
        _ = await app.outcome(timeout: 30)
    }

    /// The pids of the `grandchild <pid>` lines.
    static func grandchildren(of process: LaunchedProcess) -> [Int32] {
        process.outputLines.compactMap { line in
            line.hasPrefix("grandchild ") ? Int32(line.dropFirst("grandchild ".count)) : nil
        }
    }
}

/// A process as `/proc/<pid>/stat` shows it, with its start time, which tells it
/// from a later process given the same pid.
struct ProcessEntry {
    let pid: Int32
    let state: Character
    let parent: Int32
    let startTime: String

    init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        self.pid = pid
        self.state = state
        self.parent = parent
        startTime = String(fields[19])
    }

    /// No longer running: no such process, another process with its pid, or a
    /// zombie that is not this process's to reap.
    var isGone: Bool {
        guard let now = ProcessEntry(pid: pid), now.startTime == startTime else { return true }
        return now.state == "Z" && now.parent != getpid() ? true : false
    }
}

extension LaunchedProcess {
    /// Whether the process ends within `seconds`.
    func hasExited(within seconds: Double) -> Bool {
        eventually(seconds: seconds) { ProcessEntry(pid: processIdentifier).map { $0.state == "Z" } ?? true }
    }
}
