import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// `appgroup trace`: summarises and merges the per-process trace files of a device
/// (issue 28), here written by appgroup itself run with `APPGROUP_TRACE`.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct TraceCommandTests {
    @Test func summarisesAndMergesTwoProcessesTraces() throws {
        let fixture = try CLIFixture()
        let directory = fixture.device.scratch.appendingPathComponent("trace", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, value) in ["first", "second"].enumerated() {
            let outcome = try fixture.appgroup(["defaults", "write", CLIFixture.group, "story", value],
                                               environment: ["APPGROUP_TRACE": directory.path, "APPGROUP_TRACE_NAME": "writer \(index + 1)"])
            #expect(outcome.succeeded, "\(outcome.standardError)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 2, "\(files)")
        for file in files {
            #expect(TraceValidator.problems(inFile: directory.appendingPathComponent(file), complete: false) == [])
        }
        let summary = try fixture.succeed(["trace", directory.path])
        #expect(summary.hasPrefix("2 processes,"), "\(summary)")
        #expect(summary.contains("writer 1 (pid ") && summary.contains("writer 2 (pid "), "\(summary)")
        #expect(summary.contains("defaults.save 1"), "\(summary)")

        let merged = fixture.device.scratch.appendingPathComponent("merged.json")
        try fixture.succeed(["trace", directory.path, "--output", merged.path])
        #expect(TraceValidator.problems(inFile: merged) == [])
        // The second writer read the first one's save: one arrow between the two processes.
        let events = try TraceValidator.events(inFile: merged)
        let starts = events.filter { $0["ph"] as? String == "s" }
        let ends = events.filter { $0["ph"] as? String == "f" }
        #expect(starts.count == 1 && ends.count == 1, "\(starts) \(ends)")
        #expect(starts.first?["pid"] as? Int != ends.first?["pid"] as? Int)
    }

    @Test func refusesAFileThatIsNotATrace() throws {
        let fixture = try CLIFixture()
        let file = fixture.device.scratch.appendingPathComponent("not-a-trace.json")
        try Data(#"{"events": []}"#.utf8).write(to: file)
        try fixture.fail(["trace", file.path], status: 65, ["not a trace file", "no traceEvents array"])
        try fixture.fail(["trace", fixture.device.scratch.appendingPathComponent("missing.json").path], status: 1, ["no such file"])
        try fixture.fail(["trace"], status: 64, ["missing FILE or DIR"])
    }
}
