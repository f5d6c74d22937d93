import Foundation

/// How an exploring device's scheduler picks which waiting target goes next.
public enum ExplorationStrategy: Sendable, Hashable, CustomStringConvertible {
    /// Uniformly at random among the waiting processes, at every step.
    case random
    /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): each
    /// process gets a random priority, the highest-priority waiting process goes,
    /// and at `depth - 1` random steps the running process's priority drops below
    /// every other. Finds an ordering bug of depth d among n processes and k steps
    /// with probability at least 1/(n k^(d-1)) per schedule.
    case pct(depth: Int)

    public var description: String {
        switch self {
        case .random: ".random"
        case .pct(let depth): ".pct(depth: \(depth))"
        }
    }
}

/// SplitMix64: small, fast and the same on every platform, so a seed replays.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The choices of one schedule, from its seed.
struct Chooser {
    private var generator: SplitMix64
    private let strategy: ExplorationStrategy
    private var priorities: [Int: Int] = [:]
    private var changePoints: [Int] = []
    private var lowered = 0

    /// - Parameter expectedSteps: PCT's k, the steps a schedule is expected to take.
    init(strategy: ExplorationStrategy, seed: UInt64, expectedSteps: Int) {
        generator = SplitMix64(seed: seed)
        self.strategy = strategy
        if case .pct(let depth) = strategy, depth > 1 {
            changePoints = (0..<(depth - 1)).map { _ in Int.random(in: 1...max(1, expectedSteps), using: &generator) }.sorted()
        }
    }

    /// Picks one of `waiting` (ordinals of processes, ascending) for step number `step`.
    mutating func choose(_ waiting: [Int], step: Int) -> Int {
        switch strategy {
        case .random:
            return waiting[Int.random(in: 0..<waiting.count, using: &generator)]
        case .pct:
            for ordinal in waiting where priorities[ordinal] == nil {
                // Distinct high priorities, assigned in the order processes are first seen.
                priorities[ordinal] = 1_000 + Int.random(in: 0..<1_000_000, using: &generator) * 64 + ordinal
            }
            let chosen = waiting.max { priorities[$0]! < priorities[$1]! }!
            if changePoints.contains(step) {
                lowered += 1
                priorities[chosen] = changePoints.count - lowered // below every initial priority
            }
            return chosen
        }
    }
}
