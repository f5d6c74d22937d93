import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// `appgroup trace`: summarises and merges the per-process trace files of a device,
/// here written by appgroup itself run with `APPGROUP_TRACE`.
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

    /// Finding guarded: a trace file was read whole, whatever its size (a 3 GB
    /// file took the command past 1 GB of memory), and a FIFO was waited on.
    @Test(.tags(.hostile)) func refusesHugeFilesFIFOsAndLinksWithoutReadingThem() throws {
        let fixture = try CLIFixture()
        let huge = fixture.device.scratch.appendingPathComponent("huge.json")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: Data("{".utf8)))
        #expect(truncate(huge.path, 3 << 30) == 0) // sparse: 3 GB that cost no disk
        try fixture.fail(["trace", huge.path], status: 65, ["3221225472 bytes", "past the limit of \(64 << 20)"])

        let directory = fixture.device.scratch.appendingPathComponent("trace", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(mkfifo(directory.appendingPathComponent("a.json").path, 0o600) == 0)
        try fixture.fail(["trace", directory.path], status: 65, ["a.json", "FIFO, not a regular file"])
        try FileManager.default.removeItem(at: directory.appendingPathComponent("a.json"))

        let secret = fixture.device.outside.appendingPathComponent("secret.json")
        try Data(#"{"traceEvents": [{"ph": "i", "name": "secret", "pid": 1, "ts": 1}]}"#.utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("b.json"), withDestinationURL: secret)
        try fixture.fail(["trace", directory.path], status: 65, ["b.json", "symbolic link"])
    }
}
