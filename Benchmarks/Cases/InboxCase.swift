import AppGroupContainer
import Foundation
import ShareInbox

/// Case 5: the share inbox end to end. Four extension processes enqueue (durable)
/// while one app process, watching the inbox, drains; then the app drains a
/// standing backlog of 1,000 and of 10,000 items, to show its peak memory does not
/// grow with the number of items.
func inboxCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "5. share inbox: 4 extension processes enqueue, 1 app process drains")
    let total = run.count(10_000)
    let extensions = 4

    // The floor runs just before and just after the inbox, and counts as the
    // average of the two, so that a change of load on the machine weighs on both.
    let floorBefore = try floorRate(run, total: total, processes: extensions)
    // The SQLite peer too (the queue a team would pick instead), its
    // synchronous=FULL rate the average of a run before and a run after the inbox.
    let sqliteRoot = try run.scratch("inbox-sqlite")
    guard let container = try BenchIdentity.resolver(root: sqliteRoot).containerURL(forSecurityApplicationGroupIdentifier: BenchIdentity.group) else {
        throw BenchmarkError.child("no container for \(BenchIdentity.group) under \(sqliteRoot.path)")
    }
    let database = container.appendingPathComponent("Library/Application Support/queue.sqlite")
    try FileManager.default.createDirectory(at: database.deletingLastPathComponent(), withIntermediateDirectories: true)
    let sqliteBefore = try SQLitePeer.rate(run, database: database, total: total, writers: extensions, synchronous: "FULL")

    // End to end: from the extensions' launch to the app's last delivery.
    let root = try run.scratch("inbox")
    _ = try BenchIdentity.inbox(root: root)
    let app = try run.spawnSelf(["child", "inbox-drain", "--root", root.path, "--expect", String(total)])
    guard run.readLine(app) == "ready" else { throw BenchmarkError.child("the app child did not get ready") }
    let start = now()
    let children = try (0..<extensions).map { k in
        try run.spawnSelf(["child", "inbox-enqueue", "--root", root.path, "--bundle", "ai.bench.app.share\(k)",
                           "--count", String(share(total, of: extensions, k))])
    }
    var enqueueEnd = 0.0
    for child in children {
        enqueueEnd = max(enqueueEnd, try parseFields(try run.wait(child)).required("end_ns"))
    }
    let appFields = parseFields(try run.wait(app))
    guard Int(appFields["drained"] ?? 0) == total else { throw BenchmarkError.child("the app drained \(appFields["drained"] ?? 0) of \(total) items") }
    let seconds = (try appFields.required("end_ns") - Double(start)) / 1e9
    let rate = Double(total) / seconds
    let floor = (floorBefore + (try floorRate(run, total: total, processes: extensions))) / 2
    // Reported beside it: the same publications numbered under one lock, as an
    // ordered queue must number them.
    let numberedFloor = try floorRate(run, total: total, processes: extensions, numbered: true)
    let sqliteAfter = try SQLitePeer.rate(run, database: database, total: total, writers: extensions, synchronous: "FULL")
    // For information only, so left out of a smoke run (--scale below 0.1), where
    // python's starts would be most of their time. SQLite commits one transaction
    // at a time (a WAL has one writer): one writer process is the peer with no lock
    // to hand over.
    let informational = run.scale >= 0.1
    let sqliteBusy = informational
        ? try SQLitePeer.rate(run, database: database, total: total, writers: extensions, synchronous: "FULL", waiting: .busy) : nil
    let sqliteNormal = informational ? try SQLitePeer.rate(run, database: database, total: total, writers: extensions, synchronous: "NORMAL") : nil
    let sqliteOne = informational ? try SQLitePeer.rate(run, database: database, total: total, writers: 1, synchronous: "FULL") : nil

    var endToEnd = Sample(name: "\(total) items, durable: launch of the extensions to the app's last delivery",
                          value: rate, unit: "items_per_s")
    endToEnd.extra["elapsed_ms"] = seconds * 1000
    endToEnd.extra["enqueue_items_per_s"] = Double(total) / ((enqueueEnd - Double(start)) / 1e9)
    endToEnd.extra["app_peak_rss_kb"] = appFields["peak_rss_kb"] ?? 0
    result.samples.append(endToEnd)
    result.samples.append(Sample(name: "floor: \(total) bare durable publications, \(extensions) processes", value: floor, unit: "items_per_s"))
    result.ratios.append(Ratio("end to end, items per second (durable)", rate, atLeast: 2000))
    result.ratios.append(Ratio("end-to-end rate / floor rate", rate / floor, atLeast: 0.95))
    result.samples.append(Sample(name: "numbered floor: the same, numbered under one lock", value: numberedFloor, unit: "items_per_s"))
    result.ratios.append(Ratio(report: "numbered floor rate / floor rate", numberedFloor / floor))
    result.ratios.append(Ratio(report: "end-to-end rate / numbered floor rate", rate / numberedFloor))
    if let sqliteBefore, let sqliteAfter {
        let sqlite = (sqliteBefore + sqliteAfter) / 2
        result.samples.append(Sample(name: "SQLite peer: WAL, synchronous=FULL, \(extensions) writers queued on a lock, 1 drainer",
                                     value: sqlite, unit: "items_per_s"))
        result.ratios.append(Ratio("end-to-end rate / SQLite synchronous=FULL rate", rate / sqlite, atLeast: 1.25))
        let variants = [("the same, writers waiting in SQLite's busy handler", "busy handler", sqliteBusy),
                        ("the same, synchronous=NORMAL (not durable per commit)", "synchronous=NORMAL", sqliteNormal),
                        ("synchronous=FULL, 1 writer, 1 drainer", "1 writer", sqliteOne)]
        for (name, short, peer) in variants {
            guard let peer else { continue }
            result.samples.append(Sample(name: "SQLite peer: " + name, value: peer, unit: "items_per_s"))
            result.ratios.append(Ratio(report: "end-to-end rate / SQLite, " + short, rate / peer))
        }
        if !informational { result.notes.append("SQLite's other variants (busy handler, NORMAL, 1 writer) run at --scale 0.1 and above") }
    } else {
        result.notes.append("SQLite peer skipped: no python3 at \(SQLitePeer.candidates.joined(separator: " or "))")
    }

    // Memory: the app drains a standing backlog (filled here, not durably: only the
    // app's memory matters) of a tenth of the items, then of all of them.
    var peaks: [(items: Int, kb: Double)] = []
    for items in [max(1, total / 10), total] {
        let backlogRoot = try run.scratch("inbox-backlog-\(items)")
        let inbox = try BenchIdentity.inbox(root: backlogRoot, bundle: "ai.bench.app.share0", durable: false)
        for i in 0..<items { try inbox.enqueue(benchItem(i)) }
        run.settleDisk()
        let drainer = try run.spawnSelf(["child", "inbox-drain", "--root", backlogRoot.path, "--expect", String(items)])
        guard run.readLine(drainer) == "ready" else { throw BenchmarkError.child("the app child did not get ready") }
        let fields = parseFields(try run.wait(drainer))
        let kb = try fields.required("peak_rss_kb")
        var sample = Sample(name: "app drains a backlog of \(items) items (durable removals)", value: kb, unit: "peak_rss_kb")
        sample.extra["rss_before_drain_kb"] = fields["ready_rss_kb"] ?? 0
        sample.extra["items_per_s"] = Double(items) / (try fields.required("end_ns") - fields.required("start_ns")) * 1e9
        result.samples.append(sample)
        peaks.append((items, kb))
    }
    if peaks.count == 2, peaks[0].kb > 0 {
        result.ratios.append(Ratio("app peak RSS, \(peaks[1].items) / \(peaks[0].items) items", peaks[1].kb / peaks[0].kb, atMost: 1.1))
        result.ratios.append(Ratio(report: "app peak RSS growth, bytes per extra item",
                                   (peaks[1].kb - peaks[0].kb) * 1024 / Double(max(1, peaks[1].items - peaks[0].items))))
    }
    result.notes.append("peak RSS is VmHWM of the app process; flat means the drain streams instead of loading the inbox")
    return result
}

/// Process `k`'s share of `total` items split between `processes`.
private func share(_ total: Int, of processes: Int, _ k: Int) -> Int {
    total / processes + (k < total % processes ? 1 : 0)
}

/// Items per second of `total` bare durable publications (create, write, fsync,
/// rename, fsync the directory: the least a durable enqueue does) by `processes`
/// processes at once, with no drainer.
/// With `numbered`, each publication is numbered under one lock (`floor-publish-numbered`).
private func floorRate(_ run: BenchmarkRun, total: Int, processes: Int, numbered: Bool = false) throws -> Double {
    let directory = try run.scratch(numbered ? "inbox-floor-numbered" : "inbox-floor")
    let start = now()
    let children = try (0..<processes).map { k in
        try run.spawnSelf(["child", numbered ? "floor-publish-numbered" : "floor-publish", "--dir", directory.path, "--tag", String(k),
                           "--count", String(share(total, of: processes, k))])
    }
    var end = 0.0
    for child in children { end = max(end, try parseFields(try run.wait(child)).required("end_ns")) }
    return Double(total) / ((end - Double(start)) / 1e9)
}

/// A typical shared item: a URL and a title, no attachments.
func benchItem(_ i: Int, title: String? = nil) -> SharedItem {
    SharedItem(url: URL(string: "https://example.com/articles/\(i)"), title: title ?? "Article number \(i)")
}

/// Child role: `inbox-enqueue --root R --bundle B --count N [--durable 0]`: N
/// enqueues (durable unless `--durable 0`) as the extension B. Prints
/// `start_ns=... end_ns=...` (monotonic clock).
func inboxEnqueueChild(_ options: Options) throws {
    let durable = (options.values["durable"] ?? "1") != "0"
    let inbox = try BenchIdentity.inbox(root: try BenchIdentity.root(options), bundle: try options.string("bundle"), durable: durable)
    let start = now()
    for i in 0..<(try options.int("count")) { try inbox.enqueue(benchItem(i)) }
    print("start_ns=\(start) end_ns=\(now())")
}

/// Child role: `inbox-drain --root R --expect N`: the app. Watches the inbox, prints
/// `ready`, drains whenever signalled until N items arrived, then prints
/// `drained=N start_ns=... end_ns=... ready_rss_kb=... peak_rss_kb=...`.
func inboxDrainChild(_ options: Options) throws {
    let inbox = try BenchIdentity.inbox(root: try BenchIdentity.root(options))
    let expected = try options.int("expect")
    let signal = DispatchSemaphore(value: 0)
    let watcher = try inbox.observe { signal.signal() }
    defer { watcher.cancel() }
    let readyKB = peakResidentKilobytes()
    // Unbuffered: the parent waits for this line before it starts the extensions.
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    let start = now()
    var drained = 0
    var checksum = 0
    let deadline = Date().addingTimeInterval(300)
    while drained < expected {
        drained += try inbox.drain { item in checksum &+= item.title?.utf8.count ?? 0 }
        if drained >= expected { break }
        guard Date() < deadline else { throw BenchmarkError.child("inbox-drain: \(drained) of \(expected) items after 300 s") }
        _ = signal.wait(timeout: .now() + 0.5)
    }
    let end = now()
    print("drained=\(drained) start_ns=\(start) end_ns=\(end) ready_rss_kb=\(readyKB) peak_rss_kb=\(peakResidentKilobytes()) checksum=\(checksum)")
}

/// Child role: `floor-publish --dir D --tag T --count N`: N bare durable
/// publications of a 200-byte file into D (the inbox case's floor). Prints `end_ns=...`.
/// `floor-publish-numbered`: the same, numbered under an OFD lock on `D/.counter`
/// (``Floor/publishDurable(_:staging:directory:name:counterFD:)``).
func floorPublishChild(_ options: Options, numbered: Bool = false) throws {
    let directory = try options.string("dir")
    let tag = try options.string("tag")
    let staging = directory + "/.staging-\(tag)"
    let data = [UInt8](repeating: UInt8(ascii: "x"), count: 200)
    let counter = numbered ? Floor.openLockFile(directory + "/.counter") : nil
    for i in 0..<(try options.int("count")) {
        Floor.publishDurable(data, staging: staging, directory: directory, name: "\(tag)-\(i)", counterFD: counter)
    }
    print("end_ns=\(now())")
}
