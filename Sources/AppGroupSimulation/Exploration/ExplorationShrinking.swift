import Foundation

extension SimulatedDevice {
    /// A failing schedule with faults made smaller before it is reported: each
    /// fault left out in turn, kept out when the schedule still fails (fewest
    /// faults); then the fewest of its first decisions that, followed by the seed's
    /// choices without faults, still fail it (shortest prefix). Every candidate is
    /// a real run; the smallest failing run is reported, so its line replays it.
    static func shrink(_ failing: ScheduleRun, strategy: ExplorationStrategy, seed: UInt64, name: String,
                       _ body: (SimulatedDevice) throws -> Void) throws -> (run: ScheduleRun, summary: String) {
        let faultCount = { (run: ScheduleRun) in run.decisions.filter { if case .fault = $0 { true } else { false } }.count }
        let before = faultCount(failing)
        guard before > 0 else { return (failing, "") }
        var best = failing
        var runs = 0
        func attempt(_ script: [ExploringScheduler.Decision]) throws -> ScheduleRun? {
            runs += 1
            let run = try runSchedule(strategy: strategy, seed: seed, faults: [], script: script, expected: 4, name: name, index: 0, body)
            return run.failure == nil ? nil : run
        }
        // Fewest faults: each left out in turn (its step still granted).
        var skip = 0
        while runs < Self.shrinkLimit {
            let faults = best.decisions.indices.filter { if case .fault = best.decisions[$0] { true } else { false } }
            guard skip < faults.count else { break }
            var script = best.decisions
            script.remove(at: faults[skip])
            if let smaller = try attempt(script), faultCount(smaller) < faultCount(best) { best = smaller } else { skip += 1 }
        }
        // Shortest prefix: the fewest first decisions that still fail it (bisection).
        var low = 0
        var high = best.decisions.count
        while low < high, runs < Self.shrinkLimit {
            let middle = (low + high) / 2
            if let shorter = try attempt(Array(best.decisions.prefix(middle))), faultCount(shorter) <= faultCount(best) {
                best = shorter
                high = min(middle, shorter.decisions.count)
            } else {
                low = middle + 1
            }
        }
        let mattered = best.decisions.indices.filter { if case .fault = best.decisions[$0] { true } else { false } }
            .map { best.schedule.indices.contains($0) ? best.schedule[$0] : "\(best.decisions[$0])" }
        var summary = "shrunk in \(runs) runs from \(before) fault(s) and \(failing.decisions.count) decisions to \(mattered.count) and \(best.decisions.count)"
        if high > 0, best.schedule.indices.contains(high - 1) { summary += "; the first \(high) decide it, the last of them: \(best.schedule[high - 1])" }
        summary += mattered.isEmpty ? "; no fault is needed: the order alone fails it" : "; the fault that mattered: " + mattered.joined(separator: "; ")
        return (best, summary)
    }

    /// The most runs a shrinking makes.
    static let shrinkLimit = 24
}
