import Foundation
import Testing
import AppGroupSystem
import TestSupport

/// The kernel's word on a process, which the lifecycle and every cross-process
/// wait rely on to tell a suspended process from a slow one.
@Suite("Process state from /proc", .tags(.multiprocess))
struct ProcessStateTests {
    @Test("a real process reads as running, then stopped after SIGSTOP, running after SIGCONT, ended after SIGKILL")
    func stopAndContinue() throws {
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["60"]
        try sleeper.run()
        let pid = sleeper.processIdentifier
        defer { if sleeper.isRunning { kill(pid, SIGKILL) }; sleeper.waitUntilExit() }
        #expect(ProcessState.of(pid) == .running)
        kill(pid, SIGSTOP)
        #expect(eventually { ProcessState.isStopped(pid) }, "SIGSTOP reaches /proc within the deadline")
        kill(pid, SIGCONT)
        #expect(eventually { ProcessState.of(pid) == .running })
        kill(pid, SIGKILL)
        #expect(eventually { [.ended, .unknown].contains(ProcessState.of(pid)) })
    }

    @Test("a process id that names no process is unknown, never stopped")
    func noSuchProcess() {
        #expect(ProcessState.of(Int32.max) == .unknown)
        #expect(!ProcessState.isStopped(Int32.max))
    }

    /// Polls `condition` for up to 10 s: the kernel updates the state
    /// asynchronously after a signal is sent.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }
}
