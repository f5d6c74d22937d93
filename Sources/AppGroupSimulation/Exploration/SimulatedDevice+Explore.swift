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
        try SimulationError.passingUp {
            try explore(schedules: schedules, strategy: strategy, seed: seed, name: name, writingSchedule: true, body)
        }
    }

    static func explore(schedules: Int, strategy: ExplorationStrategy, seed: UInt64, name: String, writingSchedule: Bool,
                        _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        let start = Date()
        var last: [String] = []
        var steps = 0
        var expected = 4 // PCT's k: learned from the schedules run so far
        for index in 0..<max(schedules, 0) {
            let scheduleSeed = index == 0 ? seed : SplitMix64.derive(seed, index)
            let device = try SimulatedDevice(name: name)
            defer { device.remove() }
            let directory = device.directory.appendingPathComponent("explore", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let scheduler = ExploringScheduler(directory: directory, strategy: strategy, seed: scheduleSeed, expectedSteps: expected)
            try scheduler.start()
            ExploringSchedulers.register(scheduler, device: device.directory)
            var thrown: Error?
            do { try body(device) } catch { thrown = error }
            ExploringSchedulers.unregister(device: device.directory)
            scheduler.stop()
            for refusal in scheduler.refusals { device.recordFailure(refusal) }
            let schedule = scheduler.schedule
            last = schedule
            steps += schedule.count
            expected = max(expected, schedule.count)
            let failures = device.failures
            if thrown != nil || !failures.isEmpty {
                let why = thrown.map { "\($0)" } ?? failures.joined(separator: "; ")
                device.recordFailure("exploration: schedule \(index + 1) failed")
                let file = writingSchedule ? ScheduleFile(test: name, strategy: strategy, seed: scheduleSeed, steps: schedule).write() : nil
                throw ExplorationFailure(strategy: strategy, seed: scheduleSeed, index: index + 1, schedule: schedule,
                                         deaths: scheduler.deaths, failure: why, explored: index + 1, scheduleFile: file)
            }
        }
        return ExplorationReport(schedules: max(schedules, 0), steps: steps, seconds: Date().timeIntervalSince(start), lastSchedule: last)
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
    /// Wall-clock seconds.
    public let seconds: Double
    /// Schedules per second.
    public var schedulesPerSecond: Double { seconds > 0 ? Double(schedules) / seconds : 0 }
    /// The steps of the last schedule run.
    public let lastSchedule: [String]

    init(schedules: Int, steps: Int, seconds: Double, lastSchedule: [String]) {
        self.schedules = schedules
        self.steps = steps
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
    /// The steps granted, in order: "<process ordinal> <target>: <step> <item>".
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

    public var description: String {
        var text = "exploration: schedule \(index) of strategy \(strategy) failed: \(failure)\n"
        text += "replay it with SimulatedDevice.explore(schedules: 1, strategy: \(strategy), seed: 0x\(String(seed, radix: 16)))"
        text += scheduleFile.map { ", or SimulatedDevice.explore(replaying: URL(fileURLWithPath: \"\($0.path)\"))\n" } ?? "\n"
        text += "its steps, in order:\n" + schedule.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        if !deaths.isEmpty { text += "\n" + deaths.joined(separator: "\n") }
        return text
    }
}
