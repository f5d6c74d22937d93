import AppGroupContainer
import AppGroupSimulation
import Foundation

/// Case 13: what the sandbox's metadata filter costs a target's system calls. The
/// same target (`Benchmarks child metadata-calls`) times getppid, stat and chmod
/// of a file in its own container, in a loop, inside Landlock alone and inside
/// Landlock with the metadata filter: every system call passes the filter's few
/// BPF instructions, and a chmod makes a round trip to the device's supervisor.
func metadataFilterCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "13. a sandboxed target's system calls: Landlock alone, and with the metadata filter")
    guard KernelSandbox.isAvailable else {
        result.notes.append("the kernel cannot enforce the sandbox here (\(KernelSandbox.availability)): nothing to measure")
        return result
    }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let device = try SimulatedDevice(name: "bench-metadata", keepPolicy: .never)
    defer { device.remove() }
    let target = try SimulatedTarget(name: "BenchApp", kind: .app, entitlements: try BenchIdentity.entitlements(), infoPlist: nil)
    let file = try target.dataContainer(on: device).documents.appendingPathComponent("timed.txt")
    try Data("x".utf8).write(to: file)
    let calls = run.count(20_000)
    let launches = max(3, run.count(7))
    func timed(_ guardMode: MetadataSandbox.Guard?) throws -> [String: Double] {
        let outcome = try MetadataSandbox.$override.withValue(guardMode) {
            try device.spawn(me, ["child", "metadata-calls", file.path, String(calls)], as: target, sandbox: .enforced)
        }
        guard outcome.succeeded else { throw BenchmarkError.child("\(outcome)") }
        return parseFields(outcome.standardOutput)
    }
    var alone: [[String: Double]] = [], filtered: [[String: Double]] = []
    for _ in 0..<launches {
        alone.append(try timed(MetadataSandbox.Guard.none))
        filtered.append(try timed(nil))
    }
    func median(_ runs: [[String: Double]], _ key: String) -> Double {
        let values = runs.compactMap { $0[key] }.sorted()
        return values.isEmpty ? 0 : values[values.count / 2]
    }
    for key in ["getppid", "stat", "chmod"] {
        let before = median(alone, key), after = median(filtered, key)
        result.samples.append(Sample(name: "\(key), Landlock alone (ns per call)", value: before, unit: "ns"))
        result.samples.append(Sample(name: "\(key), with the metadata filter (ns per call)", value: after, unit: "ns"))
        result.notes.append("\(key): \(String(format: "%.0f", before)) ns alone, \(String(format: "%.0f", after)) ns filtered "
            + "(median of \(launches) launches of \(calls) calls each)")
    }
    result.notes.append("metadata guard on this kernel: \(MetadataSandbox.current)")
    return result
}

/// The target of case 13: nanoseconds per getppid, per stat and per chmod of `path`
/// (one loop of `count` calls each), printed as `name=value` fields.
func metadataCallsChild(_ options: Options) throws {
    let arguments = Array(options.positional.dropFirst(2))
    guard arguments.count == 2, let count = Int(arguments[1]), count > 0 else {
        throw BenchmarkError.usage("child metadata-calls <file> <count>")
    }
    let path = arguments[0]
    func perCall(_ body: () -> Void) -> UInt64 {
        let start = now()
        for _ in 0..<count { body() }
        return (now() - start) / UInt64(count)
    }
    var status = stat()
    let ppid = perCall { _ = getppid() }
    let stats = perCall { _ = stat(path, &status) }
    let chmods = perCall { _ = chmod(path, 0o644) }
    print("getppid=\(ppid) stat=\(stats) chmod=\(chmods)")
}
