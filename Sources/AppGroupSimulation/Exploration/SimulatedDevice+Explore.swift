import AppGroupContainer
import AppGroupSystem
import Foundation

extension SimulatedDevice {
    /// Runs `body` under `schedules` orders of the targets' coordinated steps,
    /// each on a fresh exploring device, and throws the first order that breaks it.
    ///
    /// On an exploring device, every process the device launches asks the device's
    /// scheduler before each coordinated step (taking a coordination lock for a
    /// read or a write: `NSFileCoordinator`, a suite's save, an inbox's enqueue and
    /// drain; the rename that makes a save visible; an enqueue's publication; a
    /// signal's post and its delivery), and the scheduler lets one waiting process go at a time, chosen by
    /// `strategy` from the schedule's seed. What happens between two steps runs
    /// freely. See <doc:ExploringInterleavings>.
    ///
    /// A schedule fails when `body` throws or the device records a failure
    /// (``ProcessOutcome/requireSuccess()``, ``recordFailure(_:)``). The error says
    /// the schedule's seed and the steps it granted; the same call with
    /// `schedules: 1` and that seed replays the same order.
    /// - Parameters:
    ///   - schedules: how many orders to try (each with its own seed; the first one's is `seed`).
    ///   - strategy: ``ExplorationStrategy/random`` or ``ExplorationStrategy/pct(depth:)``.
    ///   - seed: the first schedule's seed.
    ///   - name: a prefix for the devices' directory names.
    ///   - body: the test, run once per schedule with its device.
    /// - Returns: what was explored (schedules, steps, time).
    /// - Throws: ``SimulationError/exploration(_:)`` with the first failing schedule; what making a
    ///   device throws.
    @discardableResult
    public static func explore(schedules: Int, strategy: ExplorationStrategy = .random, seed: UInt64,
                               name: String = "Exploring", _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        try explore(schedules: schedules, faults: [], strategy: strategy, seed: seed, name: name, body)
    }

    /// Runs `body` under `schedules` orders of the targets' coordinated steps, as
    /// ``explore(schedules:strategy:seed:name:_:)`` does, and lets iOS intervene:
    /// at a target's explored step the device may apply one of `faults` (move it to
    /// the background and suspend it, jetsam, terminate, warn of memory pressure),
    /// as iOS does at moments no test chose. Each kind is on in about half the
    /// schedules, at a rate the schedule's seed chooses, so most schedules stay near
    /// the path without faults. A target suspended while it holds a lock in a group
    /// container is killed with 0xdead10cc, and that fails the schedule.
    ///
    /// A failing schedule's error carries one line that replays it exactly
    /// (``ExplorationFailure/replayLine``): pass it to ``replay(_:_:)``, or set it
    /// as `APPGROUP_EXPLORE_REPLAY` in the environment, where every `explore` of the
    /// test it names runs that schedule instead. See <doc:ExploringInterleavings>.
    /// - Parameters:
    ///   - schedules: how many orders to try (each with its own seed; the first one's is `seed`).
    ///   - faults: the interventions iOS may make (empty: none, the order alone is explored).
    ///   - strategy: ``ExplorationStrategy/random`` or ``ExplorationStrategy/pct(depth:)``.
    ///   - seed: the first schedule's seed.
    ///   - checkingDeterminism: run each schedule twice and fail when the two runs
    ///     took different steps or met different faults (also on with
    ///     `APPGROUP_EXPLORE_CHECK=1`): nondeterminism in the test's code is
    ///     reported, not explored as if it were the schedule's.
    ///   - name: a prefix for the devices' directory names, and the test's name in a replay line.
    ///   - body: the test, run once per schedule with its device.
    /// - Returns: what was explored (schedules, steps, faults, time).
    /// - Throws: ``SimulationError/exploration(_:)`` with the first failing schedule;
    ///   ``SimulationError/nondeterminism(_:)`` when a checked schedule ran two ways;
    ///   ``SimulationError/replayLine(_:)`` for a malformed `APPGROUP_EXPLORE_REPLAY`;
    ///   what making a device throws.
    @discardableResult
    public static func explore(schedules: Int, faults: Set<ExplorationFault>, strategy: ExplorationStrategy = .random, seed: UInt64,
                               checkingDeterminism: Bool = false, name: String = "Exploring",
                               _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        try SimulationError.passingUp {
            if let requested = ProcessInfo.processInfo.environment[replayEnvironmentKey], !requested.isEmpty {
                let line = try ReplayLine.parse(requested)
                if line.test == name { return try replay(line, body) }
            }
            let check = checkingDeterminism || ProcessInfo.processInfo.environment[checkEnvironmentKey] == "1"
            return try explore(schedules: schedules, strategy: strategy, seed: seed, faults: faults, check: check, name: name,
                               writingSchedule: true, body)
        }
    }

    /// The environment variable holding a replay line: `explore` of the test it names runs that schedule.
    public static let replayEnvironmentKey = "APPGROUP_EXPLORE_REPLAY"
    /// The environment variable that turns the determinism check on for every `explore` (`1`).
    public static let checkEnvironmentKey = "APPGROUP_EXPLORE_CHECK"

    /// Replays exactly the schedule of a replay line, as a failing exploration
    /// printed it (``ExplorationFailure/replayLine``): the same decisions, the same
    /// faults at the same steps, on one fresh exploring device.
    /// - Throws: ``SimulationError/replayLine(_:)`` for a malformed line (what and
    ///   where) or a replay that took another order than the line records;
    ///   ``SimulationError/exploration(_:)`` when the replay fails, as it should.
    @discardableResult
    public static func replay(_ line: String, _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        try SimulationError.passingUp {
            try replay(try ReplayLine.parse(line), body)
        }
    }

    static func replay(_ line: ReplayLine, _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        let start = Date()
        let run = try runSchedule(strategy: line.strategy, seed: line.seed, faults: line.faults, script: line.decisions,
                                  expected: 4, name: line.test, index: 1, body)
        if let script = line.decisions, run.divergence != nil || run.decisions != script {
            let index = (0..<min(script.count, run.decisions.count)).first { script[$0] != run.decisions[$0] } ?? min(script.count, run.decisions.count)
            let why = run.divergence ?? "at decision \(index + 1) the line records \(index < script.count ? "\(script[index])" : "the end") "
                + "and the replay took \(index < run.decisions.count ? "\(run.decisions[index])" : "the end")"
            throw ReplayLineError(column: nil, field: "trace", problem: "the replay took another order: \(why) (was the test or the code changed since?)")
        }
        if let why = run.failure {
            throw failure(run, why: why, strategy: line.strategy, seed: line.seed, faults: line.faults, index: 1, name: line.test, writingSchedule: false)
        }
        return ExplorationReport(schedules: 1, steps: run.decisions.count, faults: run.faultsApplied, seconds: Date().timeIntervalSince(start),
                                 lastSchedule: run.schedule)
    }

    static func explore(schedules: Int, strategy: ExplorationStrategy, seed: UInt64, faults: Set<ExplorationFault> = [], check: Bool = false,
                        name: String, writingSchedule: Bool, _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        let start = Date()
        var last: [String] = []
        var steps = 0
        var applied = 0
        var expected = 4 // PCT's k: learned from the schedules run so far
        for index in 0..<max(schedules, 0) {
            let scheduleSeed = index == 0 ? seed : SplitMix64.derive(seed, index)
            let run = try runSchedule(strategy: strategy, seed: scheduleSeed, faults: faults, script: nil, expected: expected,
                                      name: name, index: index + 1, body)
            last = run.schedule
            steps += run.schedule.count - run.faultsApplied
            applied += run.faultsApplied
            if let why = run.failure {
                // Made smaller first when iOS's faults were met: the report names the fault and the step that mattered.
                let (reported, summary) = try shrink(run, strategy: strategy, seed: scheduleSeed, name: name, body)
                throw failure(reported, why: reported.failure ?? why, strategy: strategy, seed: scheduleSeed, faults: faults, index: index + 1,
                              name: name, writingSchedule: writingSchedule, shrinking: summary.isEmpty ? nil : summary)
            }
            if check {
                let again = try runSchedule(strategy: strategy, seed: scheduleSeed, faults: faults, script: nil, expected: expected,
                                            name: name, index: index + 1, body)
                if again.schedule != run.schedule || again.failure != nil {
                    let line = ReplayLine(test: name, strategy: strategy, seed: scheduleSeed, faults: faults, decisions: run.decisions).text
                    throw ExplorationNondeterminism(index: index + 1, seed: scheduleSeed, first: run.schedule, second: again.schedule,
                                                    secondFailure: again.failure, replayLine: line)
                }
            }
            expected = max(expected, run.schedule.count)
        }
        return ExplorationReport(schedules: max(schedules, 0), steps: steps, faults: applied, seconds: Date().timeIntervalSince(start),
                                 lastSchedule: last)
    }

    /// What one schedule came to.
    struct ScheduleRun {
        var schedule: [String]
        var decisions: [ExploringScheduler.Decision]
        var deaths: [String]
        var divergence: String?
        var faultsApplied: Int
        /// What failed, nil when the schedule passed.
        var failure: String?
    }

    /// Runs `body` once on a fresh exploring device.
    static func runSchedule(strategy: ExplorationStrategy, seed: UInt64, faults: Set<ExplorationFault>, script: [ExploringScheduler.Decision]?,
                            expected: Int, name: String, index: Int, _ body: (SimulatedDevice) throws -> Void) throws -> ScheduleRun {
        let device = try SimulatedDevice(name: name)
        defer { device.remove() }
        let directory = device.directory.appendingPathComponent("explore", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let scheduler = ExploringScheduler(directory: directory, strategy: strategy, seed: seed, expectedSteps: expected, faults: faults,
                                           script: script) { [weak device] fault, pid in
            device?.applyExplorationFault(fault, to: pid) ?? ("not applied: the device is gone", false)
        }
        try scheduler.start()
        ExploringSchedulers.register(scheduler, device: device.directory)
        var thrown: Error?
        do { try body(device) } catch { thrown = error }
        ExploringSchedulers.unregister(device: device.directory)
        scheduler.stop()
        for refusal in scheduler.refusals { device.recordFailure(refusal) }
        let failures = device.failures
        var run = ScheduleRun(schedule: scheduler.schedule, decisions: scheduler.decisions, deaths: scheduler.deaths,
                              divergence: scheduler.divergence, faultsApplied: scheduler.faultsApplied)
        if thrown != nil || !failures.isEmpty {
            run.failure = ((thrown.map { ["\($0)"] } ?? []) + failures).joined(separator: "; ")
            device.recordFailure("exploration: schedule \(index) failed")
        }
        return run
    }

    /// The error of a failing schedule, its replay line said on standard error at once.
    private static func failure(_ run: ScheduleRun, why: String, strategy: ExplorationStrategy, seed: UInt64, faults: Set<ExplorationFault>,
                                index: Int, name: String, writingSchedule: Bool, shrinking: String? = nil) -> ExplorationFailure {
        let line = ReplayLine(test: name, strategy: strategy, seed: seed, faults: faults, decisions: run.decisions).text
        FileHandle.standardError.write(Data("AppGroupTesting: schedule \(index) of \(name) failed; replay it: \(replayEnvironmentKey)='\(line)'\n".utf8))
        let file = writingSchedule ? ScheduleFile(test: name, strategy: strategy, seed: seed, steps: run.schedule, replay: line).write() : nil
        return ExplorationFailure(strategy: strategy, seed: seed, index: index, schedule: run.schedule, deaths: run.deaths, failure: why,
                                  explored: index, scheduleFile: file, replayLine: line, shrinking: shrinking)
    }

    /// The exploration variables of a spawned target's environment.
    func explorationEnvironment() -> [String: String] {
        guard let scheduler = ExploringSchedulers.scheduler(for: directory) else { return [:] }
        return [Exploration.directoryEnvironmentKey: scheduler.directory.path,
                Exploration.schedulerEnvironmentKey: "\(getpid())"]
    }
}

extension SplitMix64 {
    /// The seed of schedule `index` of a run started with `seed`.
    static func derive(_ seed: UInt64, _ index: Int) -> UInt64 {
        var generator = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }
}

/// What ``SimulatedDevice/explore(schedules:strategy:seed:name:_:)`` explored.
public struct ExplorationReport: Sendable, Hashable {
    /// Schedules run, all passing.
    public let schedules: Int
    /// Steps granted in all.
    public let steps: Int
    /// iOS's faults applied in all.
    public let faults: Int
    /// Wall-clock seconds.
    public let seconds: Double
    /// Schedules per second.
    public var schedulesPerSecond: Double { seconds > 0 ? Double(schedules) / seconds : 0 }
    /// The steps of the last schedule run, and the faults applied in it.
    public let lastSchedule: [String]

    init(schedules: Int, steps: Int, faults: Int = 0, seconds: Double, lastSchedule: [String]) {
        self.schedules = schedules
        self.steps = steps
        self.faults = faults
        self.seconds = seconds
        self.lastSchedule = lastSchedule
    }
}

/// A schedule under which the explored test failed: its seed (which replays it)
/// and the steps it granted, in order.
public struct ExplorationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The strategy.
    public let strategy: ExplorationStrategy
    /// The failing schedule's seed: `explore(schedules: 1, strategy: strategy, seed: seed)` replays it.
    public let seed: UInt64
    /// Which schedule of the run failed (1 is the first).
    public let index: Int
    /// The steps granted, in order: "<process ordinal> <target>: <step> <item>", and
    /// iOS's faults where they struck: "<ordinal> <target>: iOS's <fault> at <step>: <what came of it>".
    public let schedule: [String]
    /// Targets that died while waiting for a turn.
    public let deaths: [String]
    /// What failed.
    public let failure: String
    /// Schedules run, the failing one included.
    public let explored: Int
    /// Where the schedule was written, to replay it with
    /// ``SimulatedDevice/explore(replaying:name:_:)`` (nil when it could not be).
    public let scheduleFile: URL?
    /// One line that replays this schedule exactly (its decisions and faults):
    /// ``SimulatedDevice/replay(_:_:)``, or `APPGROUP_EXPLORE_REPLAY` in the environment.
    public let replayLine: String
    /// How the failing schedule was made smaller before it was reported, naming the
    /// fault and the step that mattered (nil when it met no fault). ``schedule`` and
    /// ``replayLine`` are the smaller schedule's.
    public let shrinking: String?

    public var description: String {
        var text = "exploration: schedule \(index) of strategy \(strategy) failed: \(failure)\n"
        text += "replay it with SimulatedDevice.explore(schedules: 1, strategy: \(strategy), seed: 0x\(String(seed, radix: 16)))"
        text += scheduleFile.map { ", or SimulatedDevice.explore(replaying: URL(fileURLWithPath: \"\($0.path)\"))\n" } ?? "\n"
        text += "replay it exactly: \(SimulatedDevice.replayEnvironmentKey)='\(replayLine)' (or SimulatedDevice.replay(\"\(replayLine)\"))\n"
        if let shrinking { text += shrinking + "\n" }
        text += "its steps, in order:\n" + schedule.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        if !deaths.isEmpty { text += "\n" + deaths.joined(separator: "\n") }
        return text
    }
}
