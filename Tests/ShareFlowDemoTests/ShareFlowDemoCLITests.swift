import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import DeviceTestSupport
import TestSupport

/// ShareFlowDemo as a new user meets it: a root used twice, a mistyped group,
/// `--json` for scripts, help, and a run stopped by Ctrl-C, SIGTERM or a closed
/// pipe. The built binary each time; its scratch folder goes to the device's
/// scratch directory (TMPDIR), where anything left behind is seen.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads) struct ShareFlowDemoCLITests {
    let device: SimulatedDevice
    let binary: URL

    init() throws {
        device = try SimulatedDevice(name: "ShareFlowDemoCLITests")
        binary = try Demo.binary()
    }

    var environment: [String: String] { ["TMPDIR": device.scratch.path] }

    /// Scratch folders the demo left in TMPDIR.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: device.scratch.path).filter { $0.hasPrefix("ShareFlowDemo-") }
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func objects(_ outcome: ProcessOutcome, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        outcome.outputLines.map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object line: \(line)", sourceLocation: sourceLocation)
            return object ?? [:]
        }
    }

    @Test func aRootUsedBeforeIsNotAFalseAlarm() throws {
        let root = device.scratch.appendingPathComponent("my-root").path
        for run in 1...2 {
            let outcome = try device.spawn(binary, ["run", "--root", root, "--extensions", "1", "--items", "2"], as: nil, environment: environment)
            #expect(outcome.succeeded, "run \(run): \(outcome.standardError)")
            #expect(outcome.standardOutput.contains("as a process: exit 1, nothing written;"), "run \(run): \(outcome.standardOutput)")
            #expect(!outcome.standardOutput.contains("WROTE"), "run \(run)")
            // The closing line names the root the user gave, which stays.
            let last = try #require(outcome.outputLines.last)
            #expect(last.hasPrefix("(the root \(root) is yours and stays; removed the scratch folder "), "\(last)")
        }
        #expect(exists(root + "/" + Demo.group), "the container of both runs is there")
        #expect(try leftovers().isEmpty)
    }

    @Test func aBadGroupIsReportedAsTheGroup() throws {
        for role in [["extension", "--url", "https://example.com/x"], ["app"]] {
            let outcome = try device.spawn(binary, role + ["--root", device.root.path, "--group", "bad..group"], as: nil)
            #expect(outcome.status == 1, "\(role): \(outcome.status)")
            #expect(outcome.standardError.contains("invalid App Group identifier \"bad..group\""), "\(outcome.standardError)")
            #expect(!outcome.standardError.contains("bundle identifier"), "no bundle identifier the user never typed: \(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1)
        }
    }

    @Test func jsonPrintsJSONOnlyAndNamesRealPaths() throws {
        // A temporary root: removed at the end, so the summary names it as removed, not as the root.
        let temporary = try device.spawn(binary, ["run", "--json", "--extensions", "2", "--items", "2"], as: nil, environment: environment)
        #expect(temporary.succeeded, "\(temporary.standardError)")
        let events = objects(temporary)
        #expect(events.map { $0["event"] as? String ?? "?" } == ["started", "unentitledExtension", "appLaunched", "extension", "extension",
                                                                 "appDrained", "appDrained", "summary"])
        let summary = try #require(events.last)
        #expect(summary["root"] == nil && summary["ok"] as? Bool == true && summary["shared"] as? Int == 4)
        let removed = try #require(summary["removed"] as? [String])
        #expect(removed.count == 1 && removed.allSatisfy { !exists($0) })
        #expect(removed.first == events.first?["scratch"] as? String)

        // --keep: every path any line names is still there.
        let kept = try device.spawn(binary, ["run", "--json", "--keep", "--extensions", "1", "--items", "1"], as: nil, environment: environment)
        #expect(kept.succeeded, "\(kept.standardError)")
        let keptEvents = objects(kept)
        for event in keptEvents {
            for key in ["root", "scratch", "entitlements"] {
                if let path = event[key] as? String { #expect(exists(path), "\(key) \(path) of \(event["event"] ?? "?")") }
            }
        }
        #expect(keptEvents.last?["root"] is String && (keptEvents.last?["removed"] as? [String])?.isEmpty == true)
        for folder in try leftovers() { try FileManager.default.removeItem(at: device.scratch.appendingPathComponent(folder)) }

        // A root of one's own stays and is named in the summary.
        let root = device.scratch.appendingPathComponent("json-root").path
        let given = try device.spawn(binary, ["run", "--json", "--root", root, "--extensions", "1", "--items", "1"], as: nil, environment: environment)
        #expect(objects(given).last?["root"] as? String == root && exists(root))
        #expect(try leftovers().isEmpty)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aStoppedRunRemovesItsScratchFolderAndItsProcesses(_ signal: Int32) throws {
        // Many items: the run is still sharing when the signal comes.
        let run = try device.launch(binary, ["run", "--json", "--extensions", "2", "--items", "50000"], as: nil, environment: environment)
        let launched = run.waitForLine(timeout: 60) { $0.contains("\"event\":\"appLaunched\"") }
        let started = try #require(run.outputLines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let scratch = try #require(started["scratch"] as? String)
        #expect(exists(scratch))
        let appPID = try #require(launched.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["pid"] as? Int)
        run.kill(signal)
        let outcome = run.wait(timeout: 60)
        #expect(outcome.signal == signal, "ended by signal \(signal): status \(outcome.status), signal \(String(describing: outcome.signal))")
        #expect(!exists(scratch), "the scratch folder is removed")
        #expect(try leftovers().isEmpty)
        #expect(kill(pid_t(appPID), 0) == -1 && errno == ESRCH, "the app process it started is gone")
    }

    @Test func aClosedPipeRemovesTheScratchFolder() throws {
        // `| head -n 1`: the reader goes away after the first line, as a pager quit early does.
        // Enough items that the run is still printing (a few seconds) once head has gone.
        let script = #""$0" run --json --extensions 2 --items 3000 | head -n 1; echo "status ${PIPESTATUS[0]}""#
        let outcome = try LaunchedProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, binary.path],
                                              environment: device.environment(for: nil, extra: environment), timeout: 120)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        let lines = outcome.outputLines
        #expect(lines.count == 2 && lines.last == "status 141", "ended as SIGPIPE ends a process: \(lines)")
        let started = try #require(lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let scratch = try #require(started["scratch"] as? String)
        #expect(!exists(scratch))
        #expect(try leftovers().isEmpty)
    }

    @Test func helpWorksEveryWayAndListsEachRoleOnce() throws {
        let overview = try device.spawn(binary, ["--help"], as: nil)
        #expect(overview.succeeded)
        for way in [["-h"], ["help"]] {
            #expect(try device.spawn(binary, way, as: nil).standardOutput == overview.standardOutput, "\(way)")
        }
        for role in ["run", "extension", "app"] {
            let help = try device.spawn(binary, [role, "--help"], as: nil)
            #expect(help.succeeded && help.standardOutput.hasPrefix("usage: ShareFlowDemo \(role)"))
            for way in [[role, "-h"], ["help", role], ["-h", role]] {
                #expect(try device.spawn(binary, way, as: nil).standardOutput == help.standardOutput, "\(way)")
            }
            // The role's whole synopsis, every option of it, appears once in the overview.
            let synopsis = help.standardOutput.components(separatedBy: "\n\n")[0]
            #expect(overview.standardOutput.components(separatedBy: synopsis).count == 2, "\(role)'s usage once in the overview")
        }
        let unknown = try device.spawn(binary, ["help", "fly"], as: nil)
        #expect(unknown.status == 64 && unknown.standardError.contains("unknown role 'fly'"))
    }
}
