import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// iOS's interventions in the exploring schedule: a target suspended at an
/// explored step while it holds a coordinated write lock in the group is found as
/// 0xdead10cc without the test naming the step; the fixed target passes the same
/// exploration; the failure's one line replays it; the determinism check reports
/// planted nondeterminism. Real processes: the app and its widget, each an
/// AppGroupProbe `count-up` that also appends to a journal.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads)
struct ExplorationFaultTests {
    static let name = "JournalFaults"

    /// The app and the widget each count up and append a journal line: with
    /// `nested`, the journal's coordinated write is asked for while the counter's
    /// is held (the fragile point); without, after it is released.
    static func countWithJournal(_ device: SimulatedDevice, nested: Bool, pick: Bool = false) throws {
        let notes = try NotesExample()
        let container = try notes.groupContainer(on: device)
        var arguments = ["count-up", "--file", container.appendingPathComponent("counter").path, "--split", "no",
                         "--journal", container.appendingPathComponent("journal").path, "--nested", nested ? "yes" : "no"]
        if pick { arguments += ["--pick", "urandom"] }
        let processes = try [notes.app, notes.widget].map { try device.launch(built: "AppGroupProbe", arguments, as: $0) }
        for process in processes { try process.wait(timeout: 60).requireSuccess() }
    }

    @Test("a coordinated write held at a step is found as 0xdead10cc by the fault schedule, and its one line replays it exactly")
    func findsTheLockHeldWhileSuspendedAndReplaysIt() throws {
        var found: ExplorationFailure?
        do {
            try SimulatedDevice.explore(schedules: 40, faults: [.suspend], seed: 11, name: Self.name) { try Self.countWithJournal($0, nested: true) }
            Issue.record("40 schedules with suspensions passed a write lock held across a step")
        } catch SimulationError.exploration(let failure) {
            found = failure
        }
        let failure = try #require(found)
        print(failure)
        #expect(failure.failure.contains("0xdead10cc"), "\(failure)")
        let struck = failure.schedule.filter { $0.contains("iOS's suspend at") && $0.hasSuffix("killed with 0xdead10cc") }
        #expect(struck.count == 1, "\(failure.schedule)")
        let shrinking = try #require(failure.shrinking)
        #expect(shrinking.contains("the fault that mattered: \(struck.first ?? "?")"), "\(shrinking)")
        #expect(failure.replayLine.hasPrefix("appgroup-explore 1;test=\(Self.name);strategy=random;seed=0x"), "\(failure.replayLine)")
        #expect(failure.replayLine.contains(";faults=suspend;trace="), "\(failure.replayLine)")
        #expect(failure.description.contains("APPGROUP_EXPLORE_REPLAY='\(failure.replayLine)'"))

        // The line replays the same steps, the same fault at the same step, the same failure.
        let replayed = try #require(expectSimulationError(\.exploration) {
            try SimulatedDevice.replay(failure.replayLine) { try Self.countWithJournal($0, nested: true) }
        })
        #expect(replayed.schedule == failure.schedule)
        #expect(replayed.failure.contains("0xdead10cc"), "\(replayed)")
        #expect(replayed.replayLine == failure.replayLine)

        // The schedule file replays it too, faults included.
        let file = try #require(failure.scheduleFile)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try #require(expectSimulationError(\.exploration) {
            try SimulatedDevice.explore(replaying: file, name: Self.name) { try Self.countWithJournal($0, nested: true) }
        })
        #expect(fromFile.schedule == failure.schedule)
    }

    @Test("a failing schedule is shrunk to the fault that mattered: memory warnings and harmless suspensions are left out")
    func shrinksToTheFaultThatMattered() throws {
        var shrunkFrom: [String] = []
        // Seeds until one failing schedule met more faults than the one that mattered.
        for seed in UInt64(1)...16 where !shrunkFrom.contains(where: { !$0.contains("from 1 fault(s)") && !$0.contains("not shrunk") }) {
            do {
                try SimulatedDevice.explore(schedules: 40, faults: [.suspend, .memoryWarning], seed: seed, name: Self.name) {
                    try Self.countWithJournal($0, nested: true)
                }
                Issue.record("seed \(seed): 40 schedules passed a write lock held across a step")
            } catch SimulationError.exploration(let failure) {
                let faults = failure.schedule.filter { $0.contains(": iOS's ") }
                #expect(faults.count == 1 && faults[0].hasSuffix("killed with 0xdead10cc"), "seed \(seed): \(failure)")
                shrunkFrom.append(failure.shrinking ?? "not shrunk")
            }
        }
        print(shrunkFrom.joined(separator: "\n"))
        #expect(shrunkFrom.contains { !$0.contains("from 1 fault(s)") && !$0.contains("not shrunk") }, "\(shrunkFrom)")
    }

    @Test("the fixed version (the journal written after the counter's lock is released) passes the same exploration, suspended on the way")
    func theFixedVersionPasses() throws {
        let report = try SimulatedDevice.explore(schedules: 40, faults: [.suspend], seed: 11, name: Self.name) {
            try Self.countWithJournal($0, nested: false)
        }
        #expect(report.schedules == 40)
        #expect(report.faults > 0, "no suspension struck in 40 schedules: the exploration proved nothing")
        print("exploration with suspensions: \(report.schedules) schedules, \(report.steps) steps, \(report.faults) faults")
    }

    @Test("jetsam and termination strike through the device's lifecycle, recorded as its terminations with iOS's reasons")
    func otherFaultsStrike() throws {
        var seen: Set<String> = []
        var faults = 0
        var seed: UInt64 = 1
        while !seen.isSuperset(of: ["jetsam", "terminate"]), seed <= 6 {
            let report = try SimulatedDevice.explore(schedules: 8, faults: [.jetsam, .terminate, .memoryWarning], seed: seed, name: "OtherFaults") { device in
                let notes = try NotesExample()
                let container = try notes.groupContainer(on: device)
                let arguments = ["count-up", "--file", container.appendingPathComponent("counter").path, "--split", "no"]
                let processes = try [notes.app, notes.widget].map { try device.launch(built: "AppGroupProbe", arguments, as: $0) }
                // A target may be ended by a fault: the test expects that, and checks why.
                for process in processes { _ = process.wait(timeout: 60) }
                for termination in device.terminations {
                    switch termination.reason {
                    case .jetsam: seen.insert("jetsam")
                    case .terminatedBySystem: seen.insert("terminate")
                    case .exit(status: 0): break
                    default: Issue.record("a target ended otherwise than by iOS's faults: \(termination)")
                    }
                }
            }
            faults += report.faults
            seed += 1
        }
        #expect(seen == ["jetsam", "terminate"], "\(seen) after \(faults) faults")
    }

    @Test("the determinism check fails on a target that picks its file from /dev/urandom, and passes the same test without it")
    func determinismCheck() throws {
        let report = try #require(expectSimulationError(\.nondeterminism) {
            try SimulatedDevice.explore(schedules: 8, faults: [], seed: 5, checkingDeterminism: true, name: "Picky") {
                try Self.countWithJournal($0, nested: false, pick: true)
            }
        })
        #expect(report.first != report.second)
        #expect(report.description.contains("ran two ways"), "\(report)")
        #expect(report.replayLine.hasPrefix("appgroup-explore 1;test=Picky;"))

        let passed = try SimulatedDevice.explore(schedules: 3, faults: [.suspend], seed: 5, checkingDeterminism: true, name: "Steady") {
            try Self.countWithJournal($0, nested: false)
        }
        #expect(passed.schedules == 3)
    }

    @Test("a replay follows the line's decisions, whatever its seed would choose, and reports where the run left them")
    func replayFollowsTheLine() throws {
        // Either target first, by the line alone (same seed): each diverges only after its first decision.
        for first in ["0", "1"] {
            let line = "appgroup-explore 1;test=\(Self.name);strategy=random;seed=0x7;faults=none;trace=\(first)"
            let error = try #require(expectSimulationError(\.replayLine) {
                try SimulatedDevice.replay(line) { try Self.countWithJournal($0, nested: false) }
            })
            #expect(error.column == nil)
            #expect(error.description.contains("at decision 2 the line records the end and the replay took grant("), "\(error)")
        }
    }

    @Test("a malformed replay line is a typed error saying what and where; nothing runs", .tags(.hostile))
    func malformedLines() throws {
        let good = "appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=suspend;trace=0*2.1s.1.0"
        let cases: [(line: String, field: String, column: Int?)] = [
            ("", "header", 1),
            ("appgroup-explore 2;test=T;strategy=random;seed=0x2a;faults=none;trace=0", "header", 1),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=none", "trace", 64),
            ("appgroup-explore 1;test=T;strategy=random;seed=42;faults=none;trace=0", "seed", 48),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x;faults=none;trace=0", "seed", 48),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x11111111111111111;faults=none;trace=0", "seed", 48),
            ("appgroup-explore 1;test=T;strategy=pct:0;seed=0x2a;faults=none;trace=0", "strategy", 36),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=suspend,reboot;trace=0", "faults", 60),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=suspend,suspend;trace=0", "faults", 60),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=none;trace=0.1q.1", "trace", 73),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=none;trace=0*1", "trace", 71),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=none;trace=99999999", "trace", 71),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=none;trace=", "trace", 71),
            ("appgroup-explore 1;test=T;strategy=random;seed=0x2a;faults=none;trace=0;extra=1", "line", 72),
            ("appgroup-explore 1;seed=0x2a;test=T;strategy=random;faults=none;trace=0", "test", 20),
            ("appgroup-explore 1;test=T\u{7};strategy=random;seed=0x2a;faults=none;trace=0", "line", 26),
            ("appgroup-explore 1;test=Té;strategy=random;seed=0x2a;faults=none;trace=0", "line", 26),
            ("appgroup-explore 1;test=T%zz;strategy=random;seed=0x2a;faults=none;trace=0", "test", 25),
            (good + String(repeating: ".0", count: 5000), "line", 8193),
        ]
        for (line, field, column) in cases {
            let error = expectSimulationError(\.replayLine) {
                try SimulatedDevice.replay(line) { _ in Issue.record("a malformed line ran: \(line.prefix(80))") }
            }
            #expect(error?.field == field, "\(line.prefix(100)): \(String(describing: error))")
            #expect(error?.column == column, "\(line.prefix(100)): \(String(describing: error))")
            #expect(error?.description.contains("malformed at character") == true, "\(String(describing: error))")
        }
    }
}
