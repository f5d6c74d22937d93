import Foundation

/// A failing schedule written to a file, to replay it later (another run, CI's
/// artifact) with ``SimulatedDevice/explore(replaying:name:_:)``.
///
/// JSON: `{"format": "appgroup-schedule 1", "test": NAME, "strategy": ".random",
/// "seed": "0x...", "steps": [...], "replay": LINE}`, where a step names the
/// device's directory `$DEVICE`, so that it reads the same on every device, and
/// `replay` is the failure's replay line (its decisions and faults; absent from
/// files written before there were faults).
struct ScheduleFile: Codable, Equatable {
    static let formatName = "appgroup-schedule 1"
    var format: String
    var test: String
    var strategy: String
    var seed: String
    var steps: [String]
    var replay: String?

    init(test: String, strategy: ExplorationStrategy, seed: UInt64, steps: [String], replay: String? = nil) {
        format = Self.formatName
        self.test = test
        self.strategy = strategy.description
        self.seed = "0x" + String(seed, radix: 16)
        self.steps = steps
        self.replay = replay
    }

    /// Writes it beside the system's temporary files; nil when it cannot be written.
    func write() -> URL? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(test)-\(seed).schedule.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self), (try? data.write(to: url, options: .atomic)) != nil else { return nil }
        return url
    }

    /// The schedule in `url`, checked to be one of `test`'s.
    static func read(_ url: URL, test: String) throws -> (file: ScheduleFile, strategy: ExplorationStrategy, seed: UInt64) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ScheduleFileError(path: url.path, problem: "it cannot be read (\(error.localizedDescription))")
        }
        guard let file = try? JSONDecoder().decode(ScheduleFile.self, from: data), file.format == formatName else {
            throw ScheduleFileError(path: url.path, problem: "it is not a schedule file (\(formatName) JSON, as a failing exploration writes)")
        }
        guard file.test == test else {
            throw ScheduleFileError(path: url.path, problem: "it was recorded by the test \"\(file.test)\", not \"\(test)\"; replay it there, or pass this test's own file")
        }
        guard let strategy = ExplorationStrategy(file.strategy) else {
            throw ScheduleFileError(path: url.path, problem: "its strategy \"\(file.strategy)\" is not .random or .pct(depth: N)")
        }
        guard file.seed.hasPrefix("0x"), let seed = UInt64(file.seed.dropFirst(2), radix: 16) else {
            throw ScheduleFileError(path: url.path, problem: "its seed \"\(file.seed)\" is not 0x and hexadecimal digits")
        }
        return (file, strategy, seed)
    }
}

extension ExplorationStrategy {
    /// The strategy its ``description`` names.
    init?(_ text: String) {
        if text == ".random" { self = .random; return }
        let prefix = ".pct(depth: "
        if text.hasPrefix(prefix), text.hasSuffix(")"), let depth = Int(text.dropFirst(prefix.count).dropLast()), depth >= 1 {
            self = .pct(depth: depth)
            return
        }
        return nil
    }
}

/// A schedule file that does not belong to the test replaying it, or whose replay
/// took another order than the one recorded.
public struct ScheduleFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// What is wrong, and what to do.
    public let problem: String
    public var description: String { "the schedule file \(path) cannot be replayed: \(problem)" }
}

extension SimulatedDevice {
    /// Replays the schedule a failing ``explore(schedules:strategy:seed:name:_:)``
    /// wrote (``ExplorationFailure/scheduleFile``): the same seed and strategy, one
    /// schedule, and a check that the steps granted are the ones recorded.
    /// - Parameters:
    ///   - file: the schedule file.
    ///   - name: the explored test's name, as given to `explore` (the file names it).
    /// - Throws: ``SimulationError/scheduleFile(_:)`` for a file that is not a schedule, is another
    ///   test's, or whose replay took another order (the first step that differs);
    ///   ``ExplorationFailure`` when the replay fails, as it should for a failing schedule.
    @discardableResult
    public static func explore(replaying file: URL, name: String = "Exploring", _ body: (SimulatedDevice) throws -> Void) throws -> ExplorationReport {
        try SimulationError.passingUp {
            let (recorded, strategy, seed) = try ScheduleFile.read(file, test: name)
            var line: ReplayLine?
            if let text = recorded.replay {
                do { line = try ReplayLine.parse(text) } catch {
                    throw ScheduleFileError(path: file.path, problem: "its replay line cannot be used: \(error)")
                }
                guard line?.test == name, line?.seed == seed, line?.strategy == strategy else {
                    throw ScheduleFileError(path: file.path, problem: "its replay line names another test, seed or strategy than the file does (was it edited?)")
                }
            }
            var replayed: [String] = []
            let report: ExplorationReport
            do {
                if let line {
                    report = try replay(line, body)
                } else {
                    report = try explore(schedules: 1, strategy: strategy, seed: seed, name: name, writingSchedule: false, body)
                }
                replayed = report.lastSchedule
            } catch let failure as ExplorationFailure {
                replayed = failure.schedule
                try Self.compare(recorded.steps, replayed, file)
                throw failure
            }
            try Self.compare(recorded.steps, replayed, file)
            return report
        }
    }

    private static func compare(_ recorded: [String], _ replayed: [String], _ file: URL) throws {
        guard recorded != replayed else { return }
        let index = (0..<min(recorded.count, replayed.count)).first { recorded[$0] != replayed[$0] } ?? min(recorded.count, replayed.count)
        let was = index < recorded.count ? recorded[index] : "(the end)"
        let now = index < replayed.count ? replayed[index] : "(the end)"
        throw ScheduleFileError(path: file.path, problem: "the replay took another order at step \(index + 1): recorded \(was), replayed \(now) (was the test or the code changed since?)")
    }
}
