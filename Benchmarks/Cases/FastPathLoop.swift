import AppGroupContainer
import Foundation
import SharedDefaults

/// Child role `fast-paths --count N`: N uncontended coordinate(readingItemAt:) and N
/// reads of an unchanged SharedDefaults key, untimed: the workload for counting
/// instructions with callgrind in two builds (tracing compiled in and off against
/// the build without it; BENCHMARKS.md). No tracing call of its own,
/// so the same file builds on a tree without the trace.
func fastPathsChild(_ options: Options) throws {
    let count = (try? options.int("count")) ?? 20_000
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("appgroup-fast-paths-\(getpid())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let item = root.appendingPathComponent("item")
    let coordinator = FileCoordinator()
    let defaults = try BenchIdentity.defaults(root: root)
    defaults.set("hello", forKey: "greeting")
    var found = 0
    for _ in 0..<count {
        try coordinator.coordinate(readingItemAt: item) { _ in }
        if defaults.string(forKey: "greeting") != nil { found += 1 }
    }
    print("fast paths: \(count) coordinated reads and \(found) defaults reads")
}
