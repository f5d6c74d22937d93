import Foundation

/// One of iOS's interventions that an exploring device may apply to a target at
/// one of its explored steps, as the system does at moments no test chose.
///
/// Each is applied through the device's own lifecycle, as the test could ask for
/// it (``SimulatedDevice/moveToBackground(_:)``, ``SimulatedDevice/suspend(_:)``,
/// ``SimulatedDevice/jetsam(_:)``, ``SimulatedDevice/terminate(_:)``), while the
/// target waits for its turn at that step. See <doc:ExploringInterleavings>.
public struct ExplorationFault: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The fault's name in a replay line.
    public let name: String
    /// Its one-letter code in a replay line's trace.
    let code: Character

    private init(_ name: String, _ code: Character) {
        self.name = name
        self.code = code
    }

    /// The user leaves the app (or the extension's host goes away), and iOS
    /// suspends it: the target is moved to the background, its background time
    /// runs out, it is suspended (killed with 0xdead10cc when it holds a lock in a
    /// group container), and, when it survives, resumed into the foreground.
    public static let suspend = ExplorationFault("suspend", "s")
    /// Jetsam reclaims the memory: the target is killed (SIGKILL) without a word.
    public static let jetsam = ExplorationFault("jetsam", "j")
    /// iOS terminates the target: an app is told `willTerminate`, then killed.
    public static let terminate = ExplorationFault("terminate", "t")
    /// iOS warns of memory pressure: the target is posted
    /// `UIApplication.didReceiveMemoryWarningNotification` and goes on.
    public static let memoryWarning = ExplorationFault("memory-warning", "m")

    /// Every fault an exploring device can apply.
    public static let all: Set<ExplorationFault> = [.suspend, .jetsam, .terminate, .memoryWarning]

    /// The fault named `name` in a replay line.
    static func named(_ name: String) -> ExplorationFault? { all.first { $0.name == name } }
    /// The fault of a trace's code.
    static func coded(_ code: Character) -> ExplorationFault? { all.first { $0.code == code } }

    public var description: String { name }
    public static func < (lhs: ExplorationFault, rhs: ExplorationFault) -> Bool { lhs.name < rhs.name }
}

/// How likely each fault is in one schedule, from the schedule's seed, as
/// FoundationDB's BUGGIFY: each kind is on in about half the schedules, and where
/// it is on it strikes at a step with a probability of 1/16, 1/8 or 1/4; so most
/// schedules stay near the path without faults, and some meet several.
struct FaultPlan {
    private var generator: SplitMix64
    /// The probability of each kind that is on in this schedule.
    let probabilities: [(fault: ExplorationFault, probability: Double)]

    init(faults: Set<ExplorationFault>, seed: UInt64) {
        // A stream of its own: the order's choices are the same with faults or without.
        generator = SplitMix64(seed: seed ^ 0x5AFE_FA17_D15C_0DE5)
        var probabilities: [(ExplorationFault, Double)] = []
        for fault in faults.sorted() {
            let on = Bool.random(using: &generator)
            let probability = [1.0 / 16, 1.0 / 8, 1.0 / 4][Int.random(in: 0..<3, using: &generator)]
            if on { probabilities.append((fault, probability)) }
        }
        self.probabilities = probabilities
    }

    /// The fault, if any, that strikes at one step of a target.
    mutating func roll() -> ExplorationFault? {
        for (fault, probability) in probabilities where Double.random(in: 0..<1, using: &generator) < probability {
            return fault
        }
        return nil
    }
}
