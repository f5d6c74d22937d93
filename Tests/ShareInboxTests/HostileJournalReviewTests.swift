import AppGroupTesting
import Foundation
import ShareInbox
import Testing
@testable import AppGroupContainer
import DeviceTestSupport
import TestSupport

/// The journal attacked where its neighbours
/// meet it (the consumer lock file, the `Journal/` directory itself, a handler
/// that drains or enqueues again), looking for items lost, repeated, or stuck.
@Suite("Hostile journal review", .tags(.hostile, .multiprocess), .dedicatedThreads)
struct HostileJournalReviewTests {
    static func journal(_ inbox: ShareInbox) -> URL { HostileJournalTests.journal(inbox) }
    static func logs(_ inbox: ShareInbox) throws -> [String] { try HostileJournalTests.logs(inbox) }

    /// One item with an attachment (in `Items/`) from the app, then two without
    /// (in a dead writer's log).
    static func seed(_ sandbox: Sandbox, _ app: ShareInbox) throws {
        let file = sandbox.scratch.appendingPathComponent("photo.jpg")
        try Data("jpeg".utf8).write(to: file)
        try app.enqueue(SharedItem(title: "with file", attachments: [.init(fileURL: file)]))
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try writer.enqueue(SharedItem(title: "one"))
        try writer.enqueue(SharedItem(title: "two"))
    }

    @Test("something planted as Journal/.consumer.lock (a directory, a link, a FIFO): set aside with a warning, every item still flows",
          arguments: ["directory", "symlink", "fifo"])
    func plantedConsumerLock(_ kind: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        try Self.seed(sandbox, app)
        let lock = Self.journal(app).appendingPathComponent(".consumer.lock")
        try? FileManager.default.removeItem(at: lock)
        switch kind {
        case "directory": try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: false)
        case "symlink": try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: sandbox.outside.appendingPathComponent("lock"))
        default: #expect(mkfifo(lock.path, 0o600) == 0)
        }
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["with file", "one", "two"], "\(kind): \(titles)")
        #expect(try app.drain { _ in } == 0)
        #expect(sandbox.outsideContents().isEmpty, "nothing is written through the link")
    }

    @Test("Journal/ replaced by a file by another process: an enqueue without attachments sets the file aside, makes Journal/ again and succeeds; every item flows")
    func journalReplacedByFile() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let file = sandbox.scratch.appendingPathComponent("photo.jpg")
        try Data("jpeg".utf8).write(to: file)
        try app.enqueue(SharedItem(title: "with file", attachments: [.init(fileURL: file)]))
        let journal = Self.journal(app)
        try FileManager.default.removeItem(at: journal)
        try Data("not a directory".utf8).write(to: journal)
        try app.enqueue(SharedItem(title: "plain"))
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["with file", "plain"])
        // Planted again, with an item waiting in Items/: the drain sets it aside and every item flows.
        try app.enqueue(SharedItem(title: "with file again", attachments: [.init(fileURL: file)]))
        try FileManager.default.removeItem(at: journal)
        try Data("not a directory".utf8).write(to: journal)
        titles = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["with file again"])
        try app.enqueue(SharedItem(title: "plain again"))
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["with file again", "plain again"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.directory.appendingPathComponent("Quarantine").path).count == 2)
    }

    @Test("a handler that drains again (same instance and another) and enqueues: every item exactly once, in number order within each drain, the journal delivered by the outer drain only")
    func reentrantHandler() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let other = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        try Self.seed(sandbox, app)
        var outer: [UInt64] = []
        var inner: [UInt64] = []
        var thrown = false
        let file = sandbox.scratch.appendingPathComponent("late.jpg")
        try Data("late".utf8).write(to: file)
        func handle(_ item: ReceivedItem) throws {
            outer.append(item.sequenceNumber)
            if item.title == "one" {
                try app.enqueue(SharedItem(title: "from handler"))
                try other.enqueue(SharedItem(title: "late file", attachments: [.init(fileURL: file)]))
                try app.drain { inner.append($0.sequenceNumber) }
                try other.drain { inner.append($0.sequenceNumber) }
            }
            if item.title == "two" && !thrown {
                thrown = true
                outer.removeLast()
                struct Refused: Error {}
                throw Refused()
            }
        }
        #expect(throws: (any Error).self) { try app.drain(handle) }
        try app.drain(handle)
        #expect(try app.drain { _ in } == 0)
        let all = outer + inner
        #expect(Set(all).count == all.count, "nothing twice: outer \(outer), inner \(inner)")
        #expect(all.count == 5, "every item: outer \(outer), inner \(inner)")
        #expect(outer == outer.sorted(), "the outer drains deliver in number order: \(outer)")
    }

    @Test("Journal/ removed by another process while a writer has a log open in it: the next enqueue without attachments makes it again and the item flows")
    func journalRemoved() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        try app.enqueue(SharedItem(title: "before"))
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        try FileManager.default.removeItem(at: Self.journal(app))
        try app.enqueue(SharedItem(title: "after"))
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["before", "after"])
    }

    @Test("70 live writers (past the 64 open logs) interleaving their numbers; a handler that throws and a maximumCount mid-way: every item once, in number order, and nothing left")
    func manyLiveWritersInterleaved() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let writers = try (0..<70).map { _ in try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false) }
        var expected: [UInt64] = []
        for round in 0..<3 {
            for (index, writer) in writers.enumerated() { expected.append(try writer.enqueue(SharedItem(title: "\(round)-\(index)"))) }
        }
        var seen: [UInt64] = []
        #expect(try app.drain(maximumCount: 75) { seen.append($0.sequenceNumber) } == 75)
        // A writer enqueues while the journal is half delivered, then a handler refuses an item far into the backlog.
        expected.append(try writers[3].enqueue(SharedItem(title: "late")))
        let refused = expected[140]
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try app.drain { item in
                if item.sequenceNumber == refused { throw Refused() }
                seen.append(item.sequenceNumber)
            }
        }
        try app.drain { seen.append($0.sequenceNumber) }
        #expect(seen == expected, "in order, once each: \(seen.count) of \(expected.count)")
        #expect(try app.pendingCount() == 0)
    }

    @Test("the Sequence file put back to an older copy (another process) while items wait in the journal: two logs share numbers; no returned enqueue is lost, the second of each pair comes under a fresh number")
    func sequenceRolledBack() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let first = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        let second = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try first.enqueue(SharedItem(title: "zero"))
        let sequence = app.directory.appendingPathComponent("Sequence")
        let old = try Data(contentsOf: sequence)
        try first.enqueue(SharedItem(title: "a1"))
        try first.enqueue(SharedItem(title: "a2"))
        try old.write(to: sequence)
        try second.enqueue(SharedItem(title: "b1"))
        try second.enqueue(SharedItem(title: "b2"))
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles.sorted() == ["a1", "a2", "b1", "b2", "zero"], "\(titles)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.directory.appendingPathComponent("Quarantine").path).isEmpty)
        // Rewound again in the middle of a drain: a number the drain passed already.
        let rewound = try Data(contentsOf: sequence)
        try first.enqueue(SharedItem(title: "c0"))
        titles = []
        try app.drain { item in
            titles.append(item.title ?? "?")
            if item.title == "c0" {
                try rewound.write(to: sequence)
                try second.enqueue(SharedItem(title: "c1"))
            }
        }
        #expect(titles == ["c0", "c1"])
        #expect(try app.drain { _ in } == 0)
    }

    @Test("a live writer crosses 1 MiB (a new log) from inside a drain's handler mid-log: every item once, in order; the rotated log goes once delivered, the live one stays")
    func rotationDuringDrain() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        let title = String(repeating: "t", count: SharedItem.Limits.titleBytes)
        let url = try #require(URL(string: "https://example.com/" + String(repeating: "u", count: SharedItem.Limits.urlBytes - 100)))
        var expected: [UInt64] = []
        for _ in 0..<60 { expected.append(try writer.enqueue(SharedItem(url: url, title: title))) }
        var seen: [UInt64] = []
        try app.drain(maximumCount: 50) { item in
            seen.append(item.sequenceNumber)
            if seen.count == 30 { for _ in 0..<60 { expected.append(try writer.enqueue(SharedItem(url: url, title: title))) } }
        }
        #expect(try Self.logs(app).count == 2, "the writer rotated")
        try app.drain { seen.append($0.sequenceNumber) }
        #expect(seen == expected, "\(seen.count) of \(expected.count), in order, once each")
        #expect(try Self.logs(app).count == 1, "the rotated, delivered log is removed; the live writer's stays")
        expected.append(try writer.enqueue(SharedItem(title: "after")))
        try app.drain { seen.append($0.sequenceNumber) }
        #expect(seen == expected)
    }

    @Test("observe fires for journal appends: from another process (a new log), then twice from a live writer appending to its open log")
    func observeJournalAppends() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let signal = DispatchSemaphore(value: 0)
        let watcher = try app.observe { signal.signal() }
        defer { watcher.cancel() }
        func waitAndDrain(_ count: Int, _ what: String) throws {
            #expect(signal.wait(timeout: .now() + 30) == .success, "no signal for \(what)")
            // Drain until the items are in (a signal may come before the last append).
            var got = 0
            for _ in 0..<300 where got < count {
                got += try app.drain { _ in }
                if got < count { _ = signal.wait(timeout: .now() + 0.1) }
            }
            #expect(got == count, "\(what): \(got) of \(count)")
            while signal.wait(timeout: .now()) == .success {} // the drain's own signals
        }
        let writer = try reliabilityProbe(["inbox-writer", "--group", Sandbox.group, "--id", "p", "--count", "2", "--scratch", sandbox.scratch.path],
                                          environment: sandbox.environment(sandbox.share))
        let outcome = writer.wait(timeout: 60)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        try waitAndDrain(2, "another process's new log")
        let live = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try live.enqueue(SharedItem(title: "first"))
        try waitAndDrain(1, "a live writer's first append")
        try live.enqueue(SharedItem(title: "second"))
        try waitAndDrain(1, "an append to an open log")
    }

    @Test("a dead writer's log (and its cursor) chowned to another user: no crash or hang; its items are delivered once, in order, and the delivered logs go",
          .enabled(if: Privileges.isRoot, "giving a log to another user needs root to chown it (CI runs as root)"))
    func logOwnedByAnotherUser() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        try Self.seed(sandbox, app)
        try app.drain(maximumCount: 2) { _ in } // the log now has a cursor
        do {
            let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
            try writer.enqueue(SharedItem(title: "three"))
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.journal(app).path) where !name.hasPrefix(".") {
            #expect(chown(Self.journal(app).appendingPathComponent(name).path, 65534, 65534) == 0)
        }
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        let aside = try FileManager.default.contentsOfDirectory(atPath: app.directory.appendingPathComponent("Quarantine").path)
        // Root reads another user's file: delivered, in order, and the dead logs go.
        #expect(titles == ["two", "three"], "delivered \(titles), quarantined \(aside)")
        #expect(try app.drain { _ in } == 0)
        #expect(try Self.logs(app).isEmpty)
    }

    /// An inotify watch follows an inode: the watch on `Journal/` must move to the
    /// directory made again, or journal appends stop signalling.
    @Test("observe keeps firing for journal appends after another process removed Journal/ and an enqueue made it again")
    func observeAfterJournalRemade() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let signal = DispatchSemaphore(value: 0)
        let watcher = try app.observe { signal.signal() }
        defer { watcher.cancel() }
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try FileManager.default.removeItem(at: Self.journal(app))
        try writer.enqueue(SharedItem(title: "first")) // makes Journal/ again, and a log in it
        try writer.enqueue(SharedItem(title: "second")) // an append only
        var signals = 0
        while signal.wait(timeout: .now() + (signals == 0 ? 5 : 0.2)) == .success { signals += 1 }
        #expect(signals > 0, "no signal for two journal appends")
        #expect(try app.drain { _ in } == 2)
        while signal.wait(timeout: .now() + 0.2) == .success {} // the drain's own
        try writer.enqueue(SharedItem(title: "third")) // an append to the new directory's log
        #expect(signal.wait(timeout: .now() + 30) == .success, "no signal for an append in the remade Journal/")
        #expect(try app.drain { _ in } == 1)
    }
}
