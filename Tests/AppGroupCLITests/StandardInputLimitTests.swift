import AppGroupContainer
import AppGroupTesting
import Foundation
import PropertyLists
import Testing
import TestSupport

/// Standard input is read up to its limit and no further: an endless
/// pipe into `appgroup plist -` or `appgroup defaults import GROUP -` ends with the
/// tool's error naming the 64 MiB limit, soon, in bounded memory, and changes nothing.
@Suite(.tags(.multiprocess, .hostile)) struct StandardInputLimitTests {
    let group = CLIFixture.group
    /// The tool's limit on what it reads (`PropertyListFile.readLimit`): 64 MiB.
    static let limit: Int64 = 64 << 20

    /// `fixture.bash`, waiting without holding a thread of the cooperative pool (these
    /// runs take seconds; the suite's async process tests need the pool meanwhile).
    func bash(_ fixture: CLIFixture, _ script: String, _ arguments: [String] = []) async throws -> ProcessOutcome {
        let environment = fixture.device.environment(for: nil, extra: ["APPGROUP": try CLIFixture.binary("appgroup").path])
        return try await LaunchedProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, "bash"] + arguments,
                                             environment: environment, timeout: 60)
    }

    /// Runs `yes | appgroup ARGUMENTS` and watches the tool's peak resident size
    /// (VmHWM in /proc/PID/status) until it exits; a tool past 400 MB is killed, so
    /// that a reader without a limit cannot take the machine down.
    /// Returns the tool's exit status (137 when killed), its peak in kB and its stderr.
    func endlessInput(_ fixture: CLIFixture, _ arguments: String) async throws -> (status: Int, peakKB: Int, stderr: String) {
        let errors = fixture.device.scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        let script = """
            yes | "$APPGROUP" \(arguments) 2>"$1" &
            pid=$!
            peak=0
            while kill -0 "$pid" 2>/dev/null; do
                hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
                if [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ]; then peak=$hwm; fi
                if [ "$peak" -gt 400000 ]; then kill -9 "$pid"; fi
                sleep 0.01
            done
            wait "$pid"
            echo "$? $peak"
            """
        let outcome = try await bash(fixture, script, [errors.path])
        #expect(!outcome.timedOut, "the tool was still reading after the deadline")
        let words = outcome.standardOutput.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard words.count == 2 else {
            Issue.record("the watcher printed \(outcome.standardOutput) \(outcome.standardError)")
            return (-1, -1, stderr)
        }
        return (words[0], words[1], stderr)
    }

    @Test("yes | appgroup plist - ends with the limit's error (exit 1) in bounded memory, having read at most 64 MiB + 1 byte")
    func plistFromAnEndlessPipe() async throws {
        let fixture = try CLIFixture()
        let run = try await endlessInput(fixture, "plist -")
        #expect(run.status == 1, "status \(run.status), stderr \(run.stderr)")
        #expect(run.peakKB > 0 && run.peakKB < 200_000, "peak resident size \(run.peakKB) kB")
        #expect(run.stderr.contains("standard input") && run.stderr.contains("\(Self.limit)"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test("yes | appgroup defaults import GROUP - ends the same way and leaves the suite as it was")
    func importFromAnEndlessPipe() async throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("kept", forKey: "before")
        let run = try await endlessInput(fixture, "defaults import \(group) -")
        #expect(run.status == 1, "status \(run.status), stderr \(run.stderr)")
        #expect(run.peakKB > 0 && run.peakKB < 200_000, "peak resident size \(run.peakKB) kB")
        #expect(run.stderr.contains("standard input") && run.stderr.contains("\(Self.limit)"), "\(run.stderr)")
        #expect(try fixture.appDefaults().storedKeys() == ["before"])
    }

    @Test("standard input of exactly the limit is read whole; one byte over is refused")
    func theLimitItself() async throws {
        let fixture = try CLIFixture()
        // A binary property list of exactly 64 MiB: one data object (quick to check)
        // and the format's 50 bytes around it (header, length, offset table, trailer).
        var bytes = try PropertyListCodec.write(.data(Data(count: Int(Self.limit) - 50)), format: .binary)
        try #require(Int64(bytes.count) == Self.limit)
        let file = fixture.device.scratch.appendingPathComponent("limit.plist")
        try bytes.write(to: file)
        let exact = try await bash(fixture, #""$APPGROUP" plist - --lint < "$1""#, [file.path])
        #expect(exact.succeeded && exact.standardOutput == "standard input: OK\n", "\(exact.standardError)")
        bytes.append(0)
        try bytes.write(to: file)
        let over = try await bash(fixture, #""$APPGROUP" plist - --lint < "$1""#, [file.path])
        #expect(over.status == 1 && over.standardError.contains("\(Self.limit)"), "\(over.status) \(over.standardError)")
    }
}
