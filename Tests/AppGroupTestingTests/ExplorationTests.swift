import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The exploring scheduler finds a read-modify-write split across two
/// coordinations (two targets each add one; one increment is lost when both read
/// before either writes) on every seed, replays the failing order from its seed,
/// and passes the correct version on every schedule. Real processes: the app and
/// its share extension, each an AppGroupProbe `count-up`.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads)
struct ExplorationTests {
    struct LostIncrement: Error, CustomStringConvertible {
        let counter: Int
        var description: String { "two targets each added one, and the counter is \(counter)" }
    }

    /// The test body: the app and the extension each count up once, at the same time.
    static func countTwice(_ device: SimulatedDevice, split: Bool) throws {
        let notes = try NotesExample()
        let container = try notes.groupContainer(on: device)
        let counter = container.appendingPathComponent("counter")
        let arguments = ["count-up", "--file", counter.path, "--split", split ? "yes" : "no"]
        let processes = try [notes.app, notes.shareExtension].map { try device.launch(built: "AppGroupProbe", arguments, as: $0) }
        for process in processes { try process.wait(timeout: 60).requireSuccess() }
        let value = Int((try String(contentsOf: counter, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        if value != 2 { throw LostIncrement(counter: value) }
    }

    @Test("a read-modify-write split across two coordinations is found within 12 schedules, for every one of 20 seeds, and its seed replays it")
    func findsTheSplitReadModifyWrite() throws {
        var found: [Int] = []
        for seed in UInt64(1)...20 {
            do {
                try SimulatedDevice.explore(schedules: 12, strategy: .random, seed: seed) { try Self.countTwice($0, split: true) }
                Issue.record("seed \(seed): 12 schedules passed the split read-modify-write")
            } catch SimulationError.exploration(let failure) {
                found.append(failure.index)
                #expect(failure.description.contains("replay it with"))
                #expect(failure.schedule.count >= 3, "\(failure)")
                if seed == 1 {
                    print(failure)
                    // The same seed, the same order, the same failure: three times.
                    for _ in 0..<3 {
                        expectSimulationError(\.exploration) {
                            try SimulatedDevice.explore(schedules: 1, strategy: .random, seed: failure.seed) { try Self.countTwice($0, split: true) }
                        }
                    }
                }
            }
        }
        print("exploration (random): schedules to the first failure over 20 seeds: \(found), mean \(Double(found.reduce(0, +)) / Double(max(found.count, 1)))")
    }

    @Test("a failing schedule's file replays it; another test's file, an edited one and a stranger are refused as such", .tags(.hostile))
    func scheduleFiles() throws {
        var file: URL?
        do {
            try SimulatedDevice.explore(schedules: 12, strategy: .random, seed: 3, name: "SplitCounter") { try Self.countTwice($0, split: true) }
            Issue.record("12 schedules passed the split read-modify-write")
        } catch SimulationError.exploration(let failure) {
            file = failure.scheduleFile
            #expect(failure.description.contains("explore(replaying:"))
        }
        let schedule = try #require(file)
        defer { try? FileManager.default.removeItem(at: schedule) }
        // The same order again, and the same failure: not a divergence.
        expectSimulationError(\.exploration) {
            try SimulatedDevice.explore(replaying: schedule, name: "SplitCounter") { try Self.countTwice($0, split: true) }
        }
        // Another test's file.
        let other = try #require(expectSimulationError(\.scheduleFile) {
            try SimulatedDevice.explore(replaying: schedule, name: "SomeOtherTest") { _ in }
        })
        #expect(other.description.contains("recorded by the test \"SplitCounter\", not \"SomeOtherTest\""), "\(other)")
        // Edited: the first step's process swapped. The fixed code takes another order than recorded.
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: schedule)) as? [String: Any])
        var steps = try #require(json["steps"] as? [String])
        steps[0] = steps[0].hasPrefix("0 ") ? "1 NotesShare: edited" : "0 Notes: edited"
        json["steps"] = steps
        let edited = schedule.deletingLastPathComponent().appendingPathComponent("edited-\(UUID().uuidString).schedule.json")
        try JSONSerialization.data(withJSONObject: json).write(to: edited)
        defer { try? FileManager.default.removeItem(at: edited) }
        let diverged = try #require(expectSimulationError(\.scheduleFile) {
            try SimulatedDevice.explore(replaying: edited, name: "SplitCounter") { try Self.countTwice($0, split: true) }
        })
        #expect(diverged.description.contains("another order at step 1"), "\(diverged)")
        // Not a schedule at all.
        let stranger = schedule.deletingLastPathComponent().appendingPathComponent("stranger-\(UUID().uuidString).json")
        try Data(#"{"traceEvents": []}"#.utf8).write(to: stranger)
        defer { try? FileManager.default.removeItem(at: stranger) }
        let refused = try #require(expectSimulationError(\.scheduleFile) {
            try SimulatedDevice.explore(replaying: stranger, name: "SplitCounter") { _ in }
        })
        #expect(refused.description.contains("not a schedule file"), "\(refused)")
    }

    @Test("PCT finds it too")
    func pctFindsIt() throws {
        expectSimulationError(\.exploration) {
            try SimulatedDevice.explore(schedules: 20, strategy: .pct(depth: 2), seed: 7) { try Self.countTwice($0, split: true) }
        }
    }

    @Test("the read-modify-write in one coordinated write passes every schedule")
    func theCorrectVersionPassesEverySchedule() throws {
        let report = try SimulatedDevice.explore(schedules: 12, strategy: .random, seed: 42) { try Self.countTwice($0, split: false) }
        #expect(report.schedules == 12)
        #expect(report.steps >= 12 * 2)
        print("exploration: \(report.schedules) schedules, \(report.steps) steps, \(String(format: "%.2f", report.schedulesPerSecond)) schedules per second")
    }

    @Test("a target killed while it waits for its turn ends nothing else, and nothing hangs", .tags(.killed))
    func aKilledTargetEndsNothingElse() throws {
        let notes = try NotesExample()
        try SimulatedDevice.explore(schedules: 3, strategy: .random, seed: 99) { device in
            let container = try notes.groupContainer(on: device)
            let file = container.appendingPathComponent("held")
            // The holder takes its lock (a granted step) and sleeps until killed; the
            // waiter then asks for the same lock, and waits behind it.
            let holder = try device.launch(built: "AppGroupProbe", ["hold", "--file", file.path, "--mode", "write"], as: notes.app)
            try #require(holder.waitForLine(timeout: 60) { $0 == "locked" } != nil)
            let waiter = try device.launch(built: "AppGroupProbe", ["wait-lock", "--file", file.path, "--timeout", "60"], as: notes.shareExtension)
            try #require(waiter.waitForLine(timeout: 60) { $0 == "waiting" } != nil)
            holder.kill()
            #expect(holder.wait(timeout: 30).signal == SIGKILL)
            let end = waiter.wait(timeout: 60)
            #expect(end.succeeded && end.outputLines.contains { $0.hasPrefix("acquired") }, "\(end.standardError)")
        }
    }
}
