import AppGroupContainer
import Foundation
import SharedDefaults
import ShareInbox

/// Case 6: how long a change made in one process takes to reach an observer in
/// another. The writer puts the monotonic clock (one clock for every process) in
/// what it writes, just before the write starts; the observer subtracts it from the
/// clock when its handler runs. So a latency includes the durable write itself.
func observationCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "6. change observation across processes (write start to observer call)")
    let writes = run.count(200)
    let interval = "5000" // microseconds between writes: spaced, so each can arrive alone

    // SharedDefaults: an observer here, a writer child doing `save`.
    let root = try run.scratch("observe-sd")
    let defaults = try BenchIdentity.defaults(root: root)
    let received = LockedBox<[UInt64]>([])
    let observation = try defaults.addObserver(forKey: "tick") { value in
        let at = now()
        if let sent = value as? Int { received.withLock { $0.append(at - UInt64(sent)) } }
    }
    let writer = try run.spawnSelf(["child", "sd-writer", "--root", root.path, "--count", String(writes), "--interval-us", interval])
    let writerFields = parseFields(try run.wait(writer))
    let sdLatencies = awaitDeliveries(received, count: writes)
    observation.cancel()
    var sd = Sample(name: "SharedDefaults addObserver(forKey:), \(writes) saves", nanoseconds: sdLatencies)
    sd.extra["delivered"] = Double(sdLatencies.count)
    sd.extra["writer_save_median_us"] = (writerFields["save_median_ns"] ?? 0) / 1000
    result.samples.append(sd)
    result.ratios.append(Ratio("SharedDefaults observer p99 latency, ms", sd.p99Ns / 1e6, atMost: 100))

    // The inbox: a watching drainer here, an extension child enqueuing.
    let inboxRoot = try run.scratch("observe-inbox")
    let inbox = try BenchIdentity.inbox(root: inboxRoot)
    let arrivals = LockedBox<[UInt64]>([])
    let watcher = try inbox.observe {
        do {
            try inbox.drain { item in
                let at = now()
                if let sent = item.title.flatMap(UInt64.init) { arrivals.withLock { $0.append(at - sent) } }
            }
        } catch {
            FileHandle.standardError.write(Data("Benchmarks: drain failed: \(error)\n".utf8))
        }
    }
    let enqueuer = try run.spawnSelf(["child", "inbox-writer", "--root", inboxRoot.path, "--count", String(writes), "--interval-us", interval])
    let enqueuerFields = parseFields(try run.wait(enqueuer))
    let inboxLatencies = awaitDeliveries(arrivals, count: writes)
    watcher.cancel()
    var ib = Sample(name: "ShareInbox observe + drain, \(writes) enqueues", nanoseconds: inboxLatencies)
    ib.extra["delivered"] = Double(inboxLatencies.count)
    ib.extra["writer_enqueue_median_us"] = (enqueuerFields["save_median_ns"] ?? 0) / 1000
    result.samples.append(ib)
    result.ratios.append(Ratio("inbox drainer p99 latency, ms", ib.p99Ns / 1e6, atMost: 100))
    result.notes.append("SharedDefaults may coalesce rapid changes (the latest value always arrives): delivered counts the observer's calls")
    result.notes.append("Foundation's UserDefaults has no cross-process observation on Linux, so there is no peer to compare with")
    return result
}

/// The latencies once `count` arrived, or two seconds after the last arrival.
private func awaitDeliveries(_ box: LockedBox<[UInt64]>, count: Int) -> [UInt64] {
    var seen = -1
    var quietSince = now()
    while true {
        let current = box.withLock { $0.count }
        if current >= count { break }
        if current != seen { seen = current; quietSince = now() }
        if now() - quietSince > 2_000_000_000 { break }
        usleep(1000)
    }
    return box.withLock { $0 }
}

/// A value behind a lock, shared with a handler thread.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Child role: `sd-writer --root R --count N --interval-us U`: N durable saves of
/// the monotonic clock to "tick", U microseconds apart. Prints `save_median_ns=...`.
func sharedDefaultsWriterChild(_ options: Options) throws {
    let defaults = try BenchIdentity.defaults(root: try BenchIdentity.root(options))
    let interval = UInt32(try options.int("interval-us"))
    var saves: [UInt64] = []
    for _ in 0..<(try options.int("count")) {
        let start = now()
        try defaults.save(Int(start), forKey: "tick")
        saves.append(now() - start)
        usleep(interval)
    }
    print("save_median_ns=\(Sample(name: "", nanoseconds: saves).medianNs)")
}

/// Child role: `inbox-writer --root R --count N --interval-us U`: N durable enqueues
/// whose title is the monotonic clock, U microseconds apart. Prints `save_median_ns=...`.
func inboxWriterChild(_ options: Options) throws {
    let inbox = try BenchIdentity.inbox(root: try BenchIdentity.root(options), bundle: "ai.bench.app.share0")
    let interval = UInt32(try options.int("interval-us"))
    var enqueues: [UInt64] = []
    for i in 0..<(try options.int("count")) {
        let start = now()
        try inbox.enqueue(benchItem(i, title: String(start)))
        enqueues.append(now() - start)
        usleep(interval)
    }
    print("save_median_ns=\(Sample(name: "", nanoseconds: enqueues).medianNs)")
}
