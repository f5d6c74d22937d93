import Foundation

/// Case 3: cross-process read-modify-write of one counter: throughput and lost updates.
func contentionCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "3. cross-process read-modify-write, 500 increments per process")
    let perProcess = run.count(500)
    for processes in [1, 2, 4] {
        let suite = foundationSuite("contention-\(processes)")
        let start = now()
        let children = try (0..<processes).map { _ in
            try run.spawnSelf(["child", "ud-increment", "--suite", suite, "--count", String(perProcess)])
        }
        for child in children { try run.wait(child) }
        let elapsed = Double(now() - start) / 1e9
        UserDefaults(suiteName: suite)?.synchronize()
        let final = UserDefaults(suiteName: suite)?.integer(forKey: "counter") ?? 0
        let expected = processes * perProcess
        result.samples.append(Sample(name: "UserDefaults, \(processes) process(es)", value: Double(expected - final), unit: "lost"))
        result.samples[result.samples.count - 1].extra["increments_per_s"] = Double(expected) / elapsed
        result.samples[result.samples.count - 1].extra["final"] = Double(final)
        for variant in try run.sharedDefaults.contentionVariants(processes: processes, perProcess: perProcess) {
            result.samples.append(variant)
            if let lost = variant.extra["lost"] {
                result.ratios.append(Ratio("\(variant.name): lost updates", lost, atMost: 0))
            }
        }
    }
    return result
}
