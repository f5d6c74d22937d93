import AppGroupContainer
import Foundation
import SharedDefaults

/// Case 12: what the timeline trace costs. Off (the default), a traced
/// site is one relaxed atomic load and a branch; on, an event is two clock reads
/// and one append. The fast paths are timed in turns with tracing off and on; the
/// comparison with a build without the trace is by instruction count (callgrind on
/// the `fast-paths` child role of both builds; BENCHMARKS.md).
func traceCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "12. timeline trace: cost off and on")
    let directory = try run.scratch("trace")
    let item = directory.appendingPathComponent("item")
    let coordinator = FileCoordinator()
    let defaults = try BenchIdentity.defaults(root: try run.scratch("trace-sd"))
    defaults.set("hello", forKey: "greeting")
    let count = run.count(100_000)
    defer {
        Tracing.set(on: false)
        Tracing.discard()
    }

    // A traced site, off: the check alone, 100 sites per timed batch.
    let batch = 100
    let path = item.path
    let off = measure("a traced site, tracing off (per site)", count: max(1, count / batch)) {
        for _ in 0..<batch { Tracing.begin(.mark)?.end(path, [("path", path)]) }
    }
    // An event, on: begin, end with one argument, append; the buffer emptied
    // between batches (untimed), so its growth is not what is measured.
    var times: [UInt64] = []
    Tracing.set(on: true)
    for round in 0..<max(1, count / batch) {
        let start = now()
        for _ in 0..<batch { Tracing.begin(.mark)?.end(path, [("path", path)]) }
        if round >= 5 { times.append((now() - start) / UInt64(batch)) }
        Tracing.discard()
    }
    Tracing.set(on: false)
    let on = Sample(name: "an event, tracing on (per event)", nanoseconds: times)
    var offPerSite = off
    offPerSite.medianNs /= Double(batch)
    offPerSite.p99Ns /= Double(batch)
    offPerSite.maxNs /= Double(batch)
    result.samples += [offPerSite, on]
    result.ratios.append(Ratio("an event, on (ns)", on.medianNs, atMost: 1000))

    // The fast paths, in turns: tracing off, then on (the events of each on turn dropped).
    let variants: [(name: String, body: () throws -> Void)] = [
        ("coordinate(readingItemAt:), tracing off", { try coordinator.coordinate(readingItemAt: item) { _ in } }),
        ("coordinate(readingItemAt:), tracing on (3 events)", {
            Tracing.set(on: true)
            try coordinator.coordinate(readingItemAt: item) { _ in }
            Tracing.set(on: false)
            Tracing.discard()
        }),
        ("SharedDefaults string(forKey:), tracing off", { _ = defaults.string(forKey: "greeting") }),
        ("SharedDefaults string(forKey:), tracing on (no event: unchanged)", {
            Tracing.set(on: true)
            _ = defaults.string(forKey: "greeting")
            Tracing.set(on: false)
        }),
    ]
    let samples = try measureInTurns(variants, count: run.count(50_000), warmup: 200)
    result.samples += samples
    result.ratios.append(Ratio(report: "coordinate(reading): on / off", samples[1].medianNs / samples[0].medianNs))
    result.ratios.append(Ratio(report: "string(forKey:): on / off", samples[3].medianNs / samples[2].medianNs))
    return result
}
