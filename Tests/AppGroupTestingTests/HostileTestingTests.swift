import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import DeviceTestSupport
import TestSupport

/// A hostile look at AppGroupTesting's new pieces (session 4 review).
@Suite(.tags(.multiprocess, .hostile), .dedicatedThreads) struct HostileTestingTests {
    /// "/" or NUL followed by a combining mark is one `Character` that is neither
    /// "/" nor NUL, so a check by `Character` let these through: the first made its
    /// device in the parent of the temporary directory.
    @Test(arguments: ["../\u{301}escape", "a/\u{301}b", "nul\0\u{301}byte"])
    func aSlashOrNulHiddenInACombiningSequenceIsRefused(name: String) throws {
        let parent = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().deletingLastPathComponent()
        func escaped() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []).filter { $0.utf8.starts(with: "\u{301}escape-".utf8) }
        }
        defer { for name in escaped() { try? FileManager.default.removeItem(at: parent.appendingPathComponent(name)) } }
        var made: SimulatedDevice?
        let error = #expect(throws: SimulationError.self) { made = try SimulatedDevice(name: name) }?.invalidDeviceName
        #expect(error?.name == name)
        if let made {
            #expect(made.directory.deletingLastPathComponent().path == FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path,
                    "the device was made at \(made.directory.path)")
            made.remove()
        }
        #expect(escaped().isEmpty, "a device was made outside the temporary directory")
    }

    /// "\r\n" is one `Character`, so splitting a `String` on "\n" did not split
    /// there: a child that ends its lines with CRLF had no lines at all (every wait
    /// for a line timed out, `outputLines` was empty).
    @Test(.tags(.killed)) func linesEndedByCRLFAreLines() async throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let script = "printf 'ready\\r\\nsecond\\r\\n'; printf 'err\\r\\n' >&2; exec sleep 600"
        let process = try LaunchedProcess(executable: shell, arguments: ["-c", script], environment: [:])
        defer { process.kill() }
        #expect(process.waitForLine("ready", timeout: 5), "no line in \(process.standardOutput.debugDescription)")
        #expect(process.waitForErrorLine(timeout: 5) { $0 == "err" } != nil)
        #expect(await process.line(timeout: 5) { $0 == "second" } == "second")
        #expect(process.outputLines == ["ready", "second"])
        process.kill()
        let outcome = process.wait(timeout: 30)
        #expect(outcome.outputLines == ["ready", "second"])
        #expect(outcome.signal == SIGKILL)
    }

    /// Megabytes on both pipes: nothing deadlocks, nothing is lost, and waiting
    /// for the line that comes after them takes seconds at most (generous deadline).
    /// (The waits searched the whole output again at each chunk read: 8 MB took
    /// 19 s before the line after them was seen.)
    @Test func megabytesOfOutputOnBothPipes() async throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let script = "yes out | head -n 500000; yes err | head -n 500000 >&2; echo done; exec sleep 600"
        let process = try LaunchedProcess(executable: shell, arguments: ["-c", script], environment: [:])
        defer { process.kill() }
        let start = Date()
        async let asyncSeen = process.line("done", timeout: 60)
        async let asyncError = process.errorLine(timeout: 60) { $0 == "never" }
        #expect(process.waitForLine("done", timeout: 60), "after \(Date().timeIntervalSince(start)) s")
        #expect(await asyncSeen)
        #expect(process.waitForOutput(containing: "out\ndone\n", timeout: 5))
        let elapsed = Date().timeIntervalSince(start)
        process.kill()
        #expect(await asyncError == nil)
        let outcome = process.wait(timeout: 30)
        #expect(outcome.standardOutput.utf8.count == 2_000_005)
        #expect(outcome.standardError.utf8.count == 2_000_000)
        #expect(outcome.outputLines.count == 500_001)
        print("[hostile] 4 MB on two pipes: the line after them in \(elapsed) s")
    }

    /// A wait for text looks at each chunk once, and still finds text cut across two.
    @Test func textCutAcrossTwoWritesIsFound() async throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let process = try LaunchedProcess(executable: shell, arguments: ["-c", "printf 'xxab'; sleep 0.3; printf 'cdyy'; sleep 0.3; printf 'z'"], environment: [:])
        async let asyncSeen = process.output(containing: "abcdyyz", timeout: 30)
        #expect(process.waitForOutput(containing: "abcdyyz", timeout: 30))
        #expect(await asyncSeen)
        #expect(process.wait(timeout: 30).succeeded)
    }

    /// Timeouts a caller may pass: infinite and huge ones wait for the event,
    /// negative ones and NaN do not wait; none traps. (The children sleep ten
    /// minutes, not less: on a loaded machine a test may start late, and a child
    /// that ended by itself would not be the killed one the test expects.)
    @Test(.tags(.killed), arguments: [TimeInterval.infinity, .greatestFiniteMagnitude, -1, -.infinity, .nan])
    func oddTimeoutsNeitherTrapNorHang(timeout: TimeInterval) async throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let process = try LaunchedProcess(executable: shell, arguments: ["-c", "echo ready; exec sleep 600"], environment: [:])
        defer { process.kill() }
        let waitsForever = timeout.isInfinite && timeout > 0 || timeout == .greatestFiniteMagnitude
        let seen = process.waitForLine("ready", timeout: timeout)
        let seenAsync = await process.line("ready", timeout: timeout)
        let never = await process.line("never", timeout: waitsForever ? 0.5 : timeout)
        if waitsForever { #expect(seen && seenAsync) }
        #expect(!never)
        process.kill()
        let outcome = await process.outcome(timeout: timeout)
        #expect(outcome.signal == SIGKILL)
    }
}
