import Foundation

/// Nanoseconds on the monotonic clock.
@inline(__always)
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Per-operation timings of one variant of a case.
struct Sample: Codable {
    var name: String
    var count: Int
    var medianNs: Double
    var p99Ns: Double
    var maxNs: Double
    var extra: [String: Double] = [:]

    init(name: String, nanoseconds: [UInt64], extra: [String: Double] = [:]) {
        let sorted = nanoseconds.sorted()
        self.name = name
        count = sorted.count
        medianNs = sorted.isEmpty ? 0 : Double(sorted[sorted.count / 2])
        p99Ns = sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))])
        maxNs = Double(sorted.last ?? 0)
        self.extra = extra
    }

    init(name: String, value: Double, unit: String) {
        self.name = name
        count = 1
        medianNs = 0
        p99Ns = 0
        maxNs = 0
        extra = [unit: value]
    }
}

/// Times `body` `count` times after `warmup` untimed runs.
func measure(_ name: String, count: Int, warmup: Int = 50, _ body: () throws -> Void) rethrows -> Sample {
    // A warm-up longer than the sample (a smoke run's tiny counts) is pointless.
    for _ in 0..<min(warmup, count) { try body() }
    var times = [UInt64]()
    times.reserveCapacity(count)
    for _ in 0..<count {
        let start = now()
        try body()
        times.append(now() - start)
    }
    return Sample(name: name, nanoseconds: times)
}

/// Times each of `variants` `count` times, taking turns (one operation of each,
/// then again), after `warmup` untimed turns: slow drifts of the machine weigh on
/// every variant alike.
func measureInTurns(_ variants: [(name: String, body: () throws -> Void)], count: Int, warmup: Int) throws -> [Sample] {
    for _ in 0..<min(warmup, count) { for variant in variants { try variant.body() } }
    var times = [[UInt64]](repeating: [], count: variants.count)
    for _ in 0..<count {
        for (k, variant) in variants.enumerated() {
            let start = now()
            try variant.body()
            times[k].append(now() - start)
        }
    }
    return zip(variants, times).map { Sample(name: $0.name, nanoseconds: $1) }
}

/// A ratio between two measurements of the same run, with the target it is held to.
struct Ratio: Codable {
    var name: String
    var value: Double
    /// "<=" or ">=".
    var relation: String
    var target: Double
    var met: Bool

    init(_ name: String, _ value: Double, atMost target: Double) {
        self.name = name
        self.value = value
        relation = "<="
        self.target = target
        met = value <= target
    }

    init(_ name: String, _ value: Double, atLeast target: Double) {
        self.name = name
        self.value = value
        relation = ">="
        self.target = target
        met = value >= target
    }

    /// A figure reported without a target.
    init(report name: String, _ value: Double) {
        self.name = name
        self.value = value
        relation = ""
        target = 0
        met = true
    }
}

/// The outcome of one case.
struct CaseResult: Codable {
    var name: String
    var samples: [Sample] = []
    var ratios: [Ratio] = []
    var notes: [String] = []
}

/// Numbers a child prints as `name=value` pairs, separated by spaces or newlines.
func parseFields(_ text: String) -> [String: Double] {
    var fields: [String: Double] = [:]
    for pair in text.split(whereSeparator: \.isWhitespace) {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
    }
    return fields
}

/// The process's peak resident set size in KiB (VmHWM in /proc/self/status; 0
/// where there is none).
func peakResidentKilobytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
    return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
}

/// The least-squares slope of log(time) against log(n): 0 means the cost does not
/// grow with n, 1 that it grows in proportion to n, 2 as its square.
func logLogSlope(_ points: [(n: Double, time: Double)]) -> Double {
    let xs = points.map { log($0.n) }, ys = points.map { log($0.time) }
    guard xs.count >= 2 else { return 0 }
    let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
    var num = 0.0, den = 0.0
    for (x, y) in zip(xs, ys) {
        num += (x - mx) * (y - my)
        den += (x - mx) * (x - mx)
    }
    return den == 0 ? 0 : num / den
}

/// The complexity a log-log slope suggests, in words.
func complexity(ofSlope slope: Double) -> String {
    switch slope {
    case ..<0.25: return "O(1)"
    case ..<0.75: return "sublinear (between O(1) and O(n))"
    case ..<1.25: return "O(n)"
    default: return "worse than O(n)"
    }
}

extension Dictionary where Key == String, Value == Double {
    /// A field a child must have printed.
    func required(_ name: String) throws -> Double {
        guard let value = self[name] else { throw BenchmarkError.child("a child did not report \(name)") }
        return value
    }
}
