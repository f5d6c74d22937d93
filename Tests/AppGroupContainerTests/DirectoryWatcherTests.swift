import AppGroupContainer
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// Collects the names a watcher reports and lets a test wait for one.
final class NameCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var seen: Set<String> = []

    func add(_ names: Set<String>) {
        condition.lock()
        seen.formUnion(names)
        condition.broadcast()
        condition.unlock()
    }

    /// True once `name` was reported, false after `seconds`.
    func wait(for name: String, timeout seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !seen.contains(name) {
            if !condition.wait(until: deadline) { return seen.contains(name) }
        }
        return true
    }

    var names: Set<String> { condition.lock(); defer { condition.unlock() }; return seen }
}

/// Every set of names a watcher delivered, in order.
final class Deliveries: @unchecked Sendable {
    private let lock = NSLock()
    private var sets: [Set<String>] = []

    func add(_ names: Set<String>) { lock.lock(); sets.append(names); lock.unlock() }
    func clear() { lock.lock(); sets.removeAll(); lock.unlock() }
    var all: [Set<String>] { lock.lock(); defer { lock.unlock() }; return sets }
}

extension MultiProcess {
    @Suite("Directory watcher", .tags(.multiprocess))
    struct DirectoryWatcherTests {
        /// `Items/` and `Journal/` made in `dir`, as an inbox has them.
        static func inboxLikeDirectories(in dir: URL) throws -> (items: URL, journal: URL) {
            let items = dir.appendingPathComponent("Items"), journal = dir.appendingPathComponent("Journal")
            try FileManager.default.createDirectory(at: items, withIntermediateDirectories: false)
            try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
            return (items, journal)
        }

        @Test("a file atomically saved by another process is reported by name within 2 s")
        func reportsSaveFromAnotherProcess() throws {
            try withTemporaryDirectory { dir in
                let collector = NameCollector()
                let watcher = try DirectoryWatcher(directory: dir) { collector.add($0) }
                defer { watcher.cancel() }
                try Probe.run(["save", "--file", dir.appendingPathComponent("note").path, "--text", "hello"])
                #expect(collector.wait(for: "note", timeout: 2), "reported so far: \(collector.names)")
                #expect(try AtomicFile.read(dir.appendingPathComponent("note"), below: .marked(above: dir.appendingPathComponent("note"))) == Data("hello".utf8))
                #expect(watcher.directory == dir)
            }
        }

        @Test("changes(in:) yields the name of a file saved by another process; cancelling stops it")
        func asyncSequence() async throws {
            try await withTemporaryDirectory { dir in
                let stream = try DirectoryWatcher.changes(in: dir)
                let consumer = Task {
                    for await names in stream where names.contains("inbox-item") { return true }
                    return false
                }
                try Probe.run(["save", "--file", dir.appendingPathComponent("inbox-item").path, "--text", "x"])
                let deadline = Task {
                    try? await Task.sleep(nanoseconds: 2_000_000_000)
                    consumer.cancel() // ends the stream: the consumer then returns false
                }
                let seen = await consumer.value
                deadline.cancel()
                #expect(seen, "inbox-item was not reported within 2 s")
            }
        }

        /// The inbox's drain writes a cursor at every delivery, beside the
        /// logs it watches; those writes must not wake the watcher.
        @Test("appends watched by name: writes to the files `appending` accepts are reported (there at the start or made later, in this process or another), writes to the others are not")
        func appendsByName() throws {
            try withTemporaryDirectory { dir in
                let (items, journal) = try Self.inboxLikeDirectories(in: dir)
                let early = journal.appendingPathComponent("early.log"), cursor = journal.appendingPathComponent("early.cursor")
                try Data().write(to: early)
                try Data(count: 24).write(to: cursor)
                let collector = NameCollector()
                let deliveries = Deliveries()
                let watcher = try DirectoryWatcher(directory: items, appendsIn: journal, appending: { $0.hasSuffix(".log") }) { names in
                    deliveries.add(names)
                    collector.add(names)
                }
                defer { watcher.cancel() }
                func append(_ url: URL, _ text: String) throws {
                    let handle = try FileHandle(forWritingTo: url)
                    defer { try? handle.close() }
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data(text.utf8))
                }
                func rewrite(_ url: URL) throws {
                    let handle = try FileHandle(forWritingTo: url)
                    defer { try? handle.close() }
                    for _ in 0..<50 { try handle.seek(toOffset: 0); try handle.write(contentsOf: Data(count: 24)) }
                }
                // A cursor rewritten in place, then a log appended to: the log's write
                // arrives after the cursor's would have (one inotify queue, in order).
                try rewrite(cursor)
                try append(early, "one")
                #expect(collector.wait(for: "early.log", timeout: 5), "reported: \(collector.names)")
                // A log made after the start (its creation names it), then appended to
                // by another process, with the cursor written between.
                let late = journal.appendingPathComponent("late.log")
                try Data().write(to: late)
                #expect(collector.wait(for: "late.log", timeout: 5))
                deliveries.clear()
                try rewrite(cursor)
                let shell = try Process.run(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "printf two >> \"$0\"", late.path])
                shell.waitUntilExit()
                #expect(shell.terminationStatus == 0)
                let deadline = Date().addingTimeInterval(5)
                var seenLate = false
                while !seenLate && Date() < deadline {
                    seenLate = deliveries.all.contains { $0.contains("late.log") }
                    if !seenLate { usleep(2_000) }
                }
                #expect(seenLate, "the other process's append to late.log was not reported")
                let reported = deliveries.all
                #expect(!reported.contains { $0.contains("early.cursor") }, "the cursor's writes were reported: \(reported)")
            }
        }

        /// One inotify event per appended record must not wake the watcher's thread and
        /// the drain for nearly every record of a stream.
        @Test("a stream of appends is reported in gathered sets, at most one per appendCoalescing after the first, and its last write is always reported")
        func appendsCoalesce() throws {
            try withTemporaryDirectory { dir in
                let (items, journal) = try Self.inboxLikeDirectories(in: dir)
                let log = journal.appendingPathComponent("writer.log")
                try Data().write(to: log)
                let times = Locked<[UInt64]>([])
                let collector = NameCollector()
                let watcher = try DirectoryWatcher(directory: items, appendsIn: journal, appending: { $0.hasSuffix(".log") }) { names in
                    times.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) }
                    collector.add(names)
                }
                defer { watcher.cancel() }
                let handle = try FileHandle(forWritingTo: log)
                defer { try? handle.close() }
                try handle.write(contentsOf: Data("ready".utf8))
                #expect(collector.wait(for: "writer.log", timeout: 5), "the watcher never reported the first write")
                usleep(20_000) // past any wait that first delivery started
                let start = DispatchTime.now().uptimeNanoseconds
                let writes = 2_000
                for _ in 0..<writes { try handle.write(contentsOf: Data("x".utf8)) }
                let last = DispatchTime.now().uptimeNanoseconds
                // The last write's event cannot be read before it was made: some delivery comes after it.
                let deadline = Date().addingTimeInterval(5)
                while times.withLock({ $0.last ?? 0 }) <= last && Date() < deadline { usleep(1_000) }
                let during = times.withLock { $0.filter { $0 >= start } }
                #expect(during.contains { $0 > last }, "the stream's last write was never reported")
                // Each wait is at least appendCoalescing long (poll rounds up), whatever the load.
                let windowMS = Double(last - start) / 1e6 + 1
                let bound = Int(windowMS / Double(max(1, DirectoryWatcher.appendCoalescing))) + 2
                let inWindow = during.filter { $0 <= last }.count
                #expect(inWindow <= bound, "\(inWindow) deliveries while \(writes) writes took \(windowMS) ms: at most \(bound) expected")
            }
        }

        @Test("watching a directory that does not exist is a typed error")
        func missingDirectory() throws {
            try withTemporaryDirectory { dir in
                #expect(throws: AppGroupError.self) {
                    _ = try DirectoryWatcher(directory: dir.appendingPathComponent("missing")) { _ in }
                }
            }
        }
    }
}
