import Foundation
import SharedDefaults

/// The SharedDefaults variants of cases 1 to 3, kept apart so that the cases read
/// the same whatever the stores compared. Each suite is the group's shared suite in
/// a container root of its own under the run's scratch directory.
struct SharedDefaultsVariants {
    let run: BenchmarkRun

    /// Case 1: `string(forKey:)` of an unchanged key, in a suite of 100 keys plus
    /// the key read (the shape the UserDefaults variant reads).
    func readVariants(directory: URL, count: Int) throws -> [Sample] {
        let defaults = try BenchIdentity.defaults(root: try run.scratch("read-sd"))
        try fill(defaults, with: sampleSuite(keys: 100).merging(["greeting": "hello"]) { $1 })
        var found = 0
        let sample = measure("SharedDefaults string(forKey:)", count: count) {
            if defaults.string(forKey: "greeting") != nil { found += 1 }
        }
        guard found > 0, defaults.lastError == nil else { throw BenchmarkError.child("the SharedDefaults read failed: \(String(describing: defaults.lastError))") }
        return [sample]
    }

    /// Case 2: the group's suite in a root of its own, filled with `dictionary`.
    func filledSuite(keys: Int, dictionary: [String: Any]) throws -> SharedDefaults {
        let defaults = try BenchIdentity.defaults(root: try run.scratch("set-sd-\(keys)"))
        try fill(defaults, with: dictionary)
        return defaults
    }

    /// Case 3: `processes` children each doing `perProcess` `update` increments of one key.
    func contentionVariants(processes: Int, perProcess: Int) throws -> [Sample] {
        let root = try run.scratch("contention-sd-\(processes)")
        let defaults = try BenchIdentity.defaults(root: root)
        let start = now()
        let children = try (0..<processes).map { _ in
            try run.spawnSelf(["child", "sd-increment", "--root", root.path, "--count", String(perProcess)])
        }
        for child in children { try run.wait(child) }
        let elapsed = Double(now() - start) / 1e9
        let final = try defaults.load(forKey: "counter") as? Int ?? 0
        let expected = processes * perProcess
        var sample = Sample(name: "SharedDefaults update, \(processes) process(es)", value: Double(expected - final), unit: "lost")
        sample.extra["increments_per_s"] = Double(expected) / elapsed
        sample.extra["final"] = Double(final)
        return [sample]
    }

    /// Writes `dictionary` into the suite in one transaction.
    func fill(_ defaults: SharedDefaults, with dictionary: [String: Any]) throws {
        try defaults.transaction { suite in
            for (key, value) in dictionary { try suite.set(value, forKey: key) }
        }
    }
}

extension BenchmarkRun {
    var sharedDefaults: SharedDefaultsVariants { SharedDefaultsVariants(run: self) }
}

/// Child role: `sd-increment --root R --count N`, N `update` increments of "counter".
func sharedDefaultsIncrementChild(_ options: Options) throws {
    let defaults = try BenchIdentity.defaults(root: try BenchIdentity.root(options))
    for _ in 0..<(try options.int("count")) {
        try defaults.update(Int.self, forKey: "counter") { ($0 ?? 0) + 1 }
    }
}
