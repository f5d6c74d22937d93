import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// A hostile look at AppGroupTesting's new pieces (session 4 review).
@Suite struct HostileTestingTests {
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
        let error = #expect(throws: InvalidDeviceName.self) { made = try SimulatedDevice(name: name) }
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
    @Test func linesEndedByCRLFAreLines() async throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let script = "printf 'ready\\r\\nsecond\\r\\n'; printf 'err\\r\\n' >&2; exec sleep 30"
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
}
