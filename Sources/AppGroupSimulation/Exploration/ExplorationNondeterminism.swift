import Foundation

/// A schedule that ran two ways from the same seed (the determinism check of
/// ``SimulatedDevice/explore(schedules:faults:strategy:seed:checkingDeterminism:name:_:)``):
/// the test's code or its targets chose something the schedule did not (the wall
/// clock, random bytes, a race outside the explored steps), so a failure found
/// under that seed would not replay.
public struct ExplorationNondeterminism: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which schedule of the run (1 is the first).
    public let index: Int
    /// Its seed.
    public let seed: UInt64
    /// The first run's steps and faults, in order.
    public let first: [String]
    /// The second run's.
    public let second: [String]
    /// What failed in the second run when the first passed (nil: it passed too).
    public let secondFailure: String?
    /// The line that replays the first run's decisions.
    public let replayLine: String

    /// The first step (from 1) where the two runs differ.
    public var firstDifference: Int {
        ((0..<min(first.count, second.count)).first { first[$0] != second[$0] } ?? min(first.count, second.count)) + 1
    }

    public var description: String {
        let at = firstDifference
        let one = at <= first.count ? first[at - 1] : "(the end)"
        let two = at <= second.count ? second[at - 1] : "(the end)"
        var text = "exploration: schedule \(index) (seed 0x\(String(seed, radix: 16))) ran two ways: at step \(at) the first run took \(one), the second \(two)"
        if let secondFailure { text += "; the second run failed: \(secondFailure)" }
        text += "\nsomething the schedule does not choose (the wall clock, random bytes, work outside the explored steps) decides what the test does; "
            + "make it a choice of the test, or replay the first run: \(SimulatedDevice.replayEnvironmentKey)='\(replayLine)'"
        return text
    }
}
