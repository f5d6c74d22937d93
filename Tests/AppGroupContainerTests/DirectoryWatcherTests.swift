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
