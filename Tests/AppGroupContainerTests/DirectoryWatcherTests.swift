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

        /// Issue 30: the inbox's drain writes a cursor at every delivery, beside the
        /// logs it watches; those writes must not wake the watcher.
        @Test("appends watched by name: writes to the files `appending` accepts are reported (there at the start or made later, in this process or another), writes to the others are not")
        func appendsByName() throws {
            try withTemporaryDirectory { dir in
                let items = dir.appendingPathComponent("Items"), journal = dir.appendingPathComponent("Journal")
                try FileManager.default.createDirectory(at: items, withIntermediateDirectories: false)
                try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
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
