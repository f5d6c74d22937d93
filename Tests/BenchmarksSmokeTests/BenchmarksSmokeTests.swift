import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Runs the built Benchmarks executable with tiny counts. It checks that every
/// case runs to the end and reports, and that the run cleans up after itself; it
/// never checks a timing or a target (the targets are for `swift run -c release
/// Benchmarks`, see BENCHMARKS.md).
@Suite("Benchmarks smoke run", .tags(.multiprocess), .dedicatedThreads)
struct BenchmarksSmokeTests {
    static let caseTitles = ["== 1. coherent read", "== 2. set one key", "== 3. cross-process read-modify-write",
                             "== 4. file coordinator", "== 5. share inbox", "== 6. change observation", "== 7. growth",
                             "== 8. property-list codec", "== 9. launching a target",
                             "== 10. signals across processes",
                             "== 11. memory watchdog",
                             "== 12. timeline trace",
                             "== 13. a sandboxed target's system calls", "== 14. keychain: SecItemCopyMatching by access group",
                             "== 15. exploring schedules for two targets"]

    @Test("--scale 0.01 runs every case, exits 0, writes the JSON and leaves no scratch files")
    func smokeRun() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-smoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tmp = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let json = scratch.appendingPathComponent("run.json")

        // A guard against a hang, not a timing: the run takes 75 to 97 s on two busy cores.
        let result = try runBenchmarks(["--scale", "0.01", "--json", json.path], tmp: tmp, seconds: 300)
        #expect(result.status == 0, "Benchmarks failed:\n\(result.standardError)")
        for title in Self.caseTitles {
            #expect(result.standardOutput.contains(title), "no \(title) in:\n\(result.standardOutput)")
        }
        #expect(result.standardOutput.contains("all targets met") || result.standardOutput.contains("targets missed:"))

        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        let cases = report?["cases"] as? [[String: Any]] ?? []
        #expect(cases.count == Self.caseTitles.count)
        #expect(cases.allSatisfy { !(($0["samples"] as? [Any]) ?? []).isEmpty })
        // Every scratch directory (suites, inboxes, Foundation's XDG config) was removed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == [])
    }

    @Test("--list names the fifteen cases; a bad --scale or --case is refused with exit 1")
    func listAndUsage() throws {
        let list = try runBenchmarks(["--list"], tmp: FileManager.default.temporaryDirectory, seconds: 30)
        #expect(list.status == 0)
        #expect(list.standardOutput.split(separator: "\n").count == Self.caseTitles.count)
        let bad = try runBenchmarks(["--scale", "zero"], tmp: FileManager.default.temporaryDirectory, seconds: 30)
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("--scale"))
        let noCase = try runBenchmarks(["--case", "16"], tmp: FileManager.default.temporaryDirectory, seconds: 30)
        #expect(noCase.status == 1)
        #expect(noCase.standardError.contains("no case 16"))
    }
}

/// Runs the built Benchmarks with `arguments` and TMPDIR set to `tmp`; kills it after `seconds`.
private func runBenchmarks(_ arguments: [String], tmp: URL, seconds: Double) throws -> ProcessOutcome {
    var environment = ProcessInfo.processInfo.environment
    environment["TMPDIR"] = tmp.path
    environment["APP_GROUP_BENCH_SCRATCH_CONFIG"] = nil
    return try LaunchedProcess(built: "Benchmarks", arguments: arguments, environment: environment).wait(timeout: seconds)
}
