import AppGroupContainer
import Foundation
import PropertyLists
import SharedDefaults

/// Child role, for profiling only (not a case, not in `--list`):
/// `set-profile --keys N --count C [--durable 0]`. Case 2's set of one key in a
/// suite of N keys, alone in a loop, beside the codec's encoding of the whole
/// suite: run it under `valgrind --tool=callgrind` or `strace -c` to see the
/// write path without the case's other variants; `--durable 0` leaves the fsyncs
/// out of a profile.
func setProfileChild(_ options: Options) throws {
    let keys = (try? options.int("keys")) ?? 10_000
    let count = (try? options.int("count")) ?? 200
    let durable = options.values["durable"] != "0"
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("appgroup-set-\(getpid())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let defaults = try SharedDefaults(requiringSuiteName: BenchIdentity.group, resolver: try BenchIdentity.resolver(root: root), durable: durable)
    try defaults.transaction { suite in
        for (key, value) in sampleSuite(keys: keys) { try suite.set(value, forKey: key) }
    }
    var i = 0
    let set = try measure("\(keys) keys: set (durable: \(durable))", count: count, warmup: 3) {
        i += 1
        try defaults.save(i, forKey: "key0")
    }
    let tree = sampleTree(keys: keys)
    let encode = try measure("\(keys) keys: the codec's encoding of the whole suite", count: count, warmup: 3) {
        _ = try PropertyListCodec.write(tree, format: .binary)
    }
    for sample in [set, encode] {
        print("\(sample.name)\tmedian \(Int(sample.medianNs)) ns\tp99 \(Int(sample.p99Ns)) ns\tn=\(sample.count)")
    }
}
