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
    for _ in 0..<warmup { try body() }
    var times = [UInt64]()
    times.reserveCapacity(count)
    for _ in 0..<count {
        let start = now()
        try body()
        times.append(now() - start)
    }
    return Sample(name: name, nanoseconds: times)
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
