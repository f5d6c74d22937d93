import Foundation

/// Case 5's peer: what a team would pick instead of the inbox, a SQLite table in
/// the group container in WAL mode, written by Python's standard `sqlite3` module
/// (no package links SQLite, and python3 is on every machine the tests run on).
/// Four writer processes commit one item per transaction; one drainer takes items
/// in transactions of select + delete, as an app emptying a queue would.
enum SQLitePeer {
    /// The places python3 is looked for, as the tests look (TestSupport's `Python`).
    static let candidates = ["/usr/bin/python3", "/usr/local/bin/python3"]

    static var python: URL? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }

    /// How a writer waits for another's transaction.
    enum Waiting: String {
        /// A blocking `flock` around every write transaction: the writers queue in
        /// the kernel, as fast as SQLite's commits allow (the peer the target is against).
        case lock
        /// SQLite's busy handler alone (`timeout=60`), which sleeps 1, 2, 5, 10... ms
        /// between tries: what a team gets by default.
        case busy
    }

    /// Items per second from the writers' start to the drainer's last delivery of
    /// `total` items, `writers` processes, `PRAGMA synchronous=<synchronous>`; nil
    /// without python3. The clock starts once every writer has started python and
    /// opened the database (python's start is slower than the inbox's extensions'),
    /// so the peer is not charged for it.
    static func rate(_ run: BenchmarkRun, database: URL, total: Int, writers: Int, synchronous: String,
                     waiting: Waiting = .lock) throws -> Double? {
        guard let python else { return nil }
        let path = database.path
        try? FileManager.default.removeItem(atPath: path)
        for suffix in ["-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let drainer = try spawn(python, ["drain", path, synchronous, waiting.rawValue, String(total)])
        var processes = [drainer]
        // On any failure, no python is left waiting (a writer for its signal, the drainer for items).
        defer { for process in processes where process.isRunning { process.terminate() } }
        guard run.readLine(drainer) == "ready" else { throw BenchmarkError.child("the SQLite drainer did not get ready") }
        for k in 0..<writers {
            processes.append(try spawn(python, ["enqueue", path, synchronous, waiting.rawValue, "ai.bench.app.share\(k)",
                                                String(total / writers + (k < total % writers ? 1 : 0))]))
        }
        let children = processes.dropFirst()
        for child in children where run.readLine(child) != "ready" { throw BenchmarkError.child("a SQLite writer did not get ready") }
        let start = now()
        for child in children { (child.standardInput as? Pipe)?.fileHandleForWriting.write(Data("go\n".utf8)) }
        for child in children { try run.wait(child) }
        // The drainer prints its line after its last commit; the clock stops here,
        // so no clock is shared with python.
        guard let line = run.readLine(drainer) else { throw BenchmarkError.child("the SQLite drainer ended without a result") }
        let end = now()
        let fields = parseFields(line)
        try run.wait(drainer)
        guard Int(fields["drained"] ?? 0) == total else { throw BenchmarkError.child("the SQLite drainer took \(fields["drained"] ?? 0) of \(total) items") }
        return Double(total) / (Double(end - start) / 1e9)
    }

    private static func spawn(_ python: URL, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script] + arguments
        process.standardOutput = Pipe()
        process.standardInput = Pipe()
        try process.run()
        return process
    }

    /// The peer: `drain|enqueue DATABASE SYNCHRONOUS lock|busy ...` (the drainer
    /// makes the table before it says `ready`). An item is the
    /// inbox's record, the same JSON with the same keys. The drainer polls every
    /// millisecond when the table is empty (SQLite tells no other process of a
    /// commit) and decodes each item, as the inbox's drain does.
    static let script = #"""
import fcntl, json, sqlite3, sys, time

role, path, synchronous, writers_wait = sys.argv[1:5]
db = sqlite3.connect(path, timeout=60, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=" + synchronous)
# "lock": writers queue on a blocking flock instead of SQLite's busy handler, which
# sleeps 1, 2, 5, 10... ms between tries: the strongest multi-process peer.
# "busy": the busy handler alone (sqlite3's timeout), as a team gets by default.
lock = open(path + ".lock", "a") if writers_wait == "lock" else None

def transaction(body):
    if lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        return body()
    finally:
        if lock:
            fcntl.flock(lock, fcntl.LOCK_UN)

def take(rows):
    db.execute("BEGIN IMMEDIATE")
    rows.extend(db.execute("SELECT number, item FROM inbox ORDER BY number LIMIT 64").fetchall())
    for number, item in rows:
        rows_checksum[0] += len(json.loads(item)["title"])
    if rows:
        db.execute("DELETE FROM inbox WHERE number <= ?", (rows[-1][0],))
    db.execute("COMMIT")

if role == "enqueue":
    sender, count = sys.argv[5], int(sys.argv[6])
    print("ready", flush=True)
    if not sys.stdin.readline():
        sys.exit("enqueue: no start signal")
    for i in range(count):
        record = {"attachments": [], "date": time.time(), "kind": "public.url", "sender": sender,
                  "title": "Article number %d" % i, "url": "https://example.com/articles/%d" % i, "version": 1}
        data = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
        # Autocommit: one transaction, one durable commit, per item.
        transaction(lambda: db.execute("INSERT INTO inbox (item) VALUES (?)", (data,)))
elif role == "drain":
    expected = int(sys.argv[5])
    db.execute("CREATE TABLE inbox (number INTEGER PRIMARY KEY AUTOINCREMENT, item BLOB NOT NULL)")
    print("ready", flush=True)
    drained, rows_checksum = 0, [0]
    deadline = time.monotonic() + 300
    while drained < expected:
        if not db.execute("SELECT 1 FROM inbox LIMIT 1").fetchall():
            if time.monotonic() > deadline:
                sys.exit("drain: %d of %d items after 300 s" % (drained, expected))
            time.sleep(0.001)
            continue
        rows = []
        transaction(lambda: take(rows))
        drained += len(rows)
    print("drained=%d checksum=%d" % (drained, rows_checksum[0]), flush=True)
"""#
}
