import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import DeviceTestSupport
import TestSupport
@testable import ShareInbox

/// A durable writer's journal log is written ahead with zeros and
/// its records written over them, so that an enqueue's fdatasync changes no size.
/// Readers find the records' end by their headers. Here: the log's shape on disk,
/// a drain across the log's growth, bytes of another process past the zeros
/// (never overwritten by the writer, judged once it is gone), and the walk that
/// finds the end misled by a foreign header.
@Suite("Journal written ahead", .tags(.hostile, .multiprocess), .serialized, .dedicatedThreads)
struct JournalWrittenAheadTests {
    static func logURL(_ inbox: ShareInbox) throws -> URL {
        HostileJournalTests.journal(inbox).appendingPathComponent(try #require(try HostileJournalTests.logs(inbox).first))
    }

    @Test("a durable writer's log: its record at offset 0, zeros written ahead behind it; counted, delivered once, and removed once the writer is gone")
    func shapeOnDisk() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        do {
            let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share))
            try writer.enqueue(SharedItem(title: "one"))
            let bytes = try Data(contentsOf: try Self.logURL(app))
            #expect(Int64(bytes.count) == JournalWriter.firstCapacity, "written ahead: \(bytes.count) bytes")
            #expect(bytes.prefix(4) == Data("AGJ2".utf8))
            let header = try #require(JournalRecord.header(bytes))
            #expect(bytes.dropFirst(Int(header.recordSize)).allSatisfy { $0 == 0 }, "zeros behind the record")
            #expect(try app.pendingCount() == 1)
            var titles: [String] = []
            try app.drain { titles.append($0.title ?? "?") }
            #expect(titles == ["one"])
            #expect(try HostileJournalTests.logs(app).count == 1, "a live writer's log stays")
        } // the writer's instance ends: its log's lock goes
        #expect(try app.drain { _ in } == 0)
        #expect(try HostileJournalTests.logs(app).isEmpty, "the delivered log of a writer that is gone is removed, zeros and all")
        #expect(try HostileJournalTests.quarantined(app).isEmpty, "zeros are never set aside")
    }

    @Test("400 durable items through one log (written ahead 16 KiB, then doubling): drains between the enqueues deliver each once, in order")
    func growth() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share))
        var numbers: [UInt64] = []
        var delivered: [UInt64] = []
        for i in 1...400 {
            numbers.append(try writer.enqueue(SharedItem(title: "item \(i)")))
            if i % 37 == 0 { try app.drain { delivered.append($0.sequenceNumber) } }
        }
        try app.drain { delivered.append($0.sequenceNumber) }
        #expect(delivered == numbers)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: try Self.logURL(app).path)[.size] as? Int)
        #expect(Int64(size) > JournalWriter.firstCapacity && size.nonzeroBitCount == 1, "written ahead again, doubling: \(size) bytes")
        #expect(try HostileJournalTests.quarantined(app).isEmpty)
        #expect(try app.pendingCount() == 0)
    }

    @Test("bytes another process appends past a live durable writer's zeros: the writer never writes over them (it starts a new log when it would); once it is gone, only they are set aside; every item delivered once")
    func foreignBytesPastTheZeros() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        // 150 records (about 200 bytes each) do not fit in the first 16 KiB: the
        // writer needs more room after the fragment.
        let (writer, resume) = try sandbox.pausedInboxWriter(count: 150)
        defer { writer.kill() }
        try #require(writer.waitForLine("paused", timeout: 60), "the writer did not start: \(writer.standardError)")
        let log = try Self.logURL(app)
        let fragment = Data("not a record, appended by another process".utf8)
        try HostileJournalTests.append(fragment, to: log)
        try Data().write(to: resume)
        try #require(writer.waitForLine("done", timeout: 60), "the writer did not finish: \(writer.standardError)")
        let after = try Data(contentsOf: log)
        #expect(after.suffix(fragment.count) == fragment, "the writer wrote over the foreign bytes")
        #expect(try HostileJournalTests.logs(app).count == 2, "the writer went on in a new log")

        // The writer left the first log (its lock went): the fragment is judged now.
        let (ledger, _) = try InboxLedger.drainingAroundDeath(of: writer, app: app)
        #expect(ledger.acknowledged.count == 150)
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8))")
        let aside = try HostileJournalTests.quarantined(app)
        #expect(aside.count == 1, "quarantined \(aside)")
        if let first = aside.first {
            #expect(try Data(contentsOf: app.directory.appendingPathComponent("Quarantine/" + first)) == fragment,
                    "exactly the fragment is set aside, not the zeros before it")
        }
        #expect(try app.drain { _ in } == 0)
        #expect(try HostileJournalTests.logs(app).isEmpty, "both logs go once delivered")
    }

    @Test("a live durable writer's log truncated by another process before any drain: the three records it destroyed are gone, every later one is delivered once, in order, at the latest once the writer is gone; nothing twice, nothing set aside")
    func truncatedUnderALiveWriter() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (writer, resume) = try sandbox.pausedInboxWriter(count: 40)
        defer { writer.kill() }
        try #require(writer.waitForLine("paused", timeout: 60), "the writer did not start: \(writer.standardError)")
        let log = try Self.logURL(app)
        // Another process empties the log under the writer: its three records are
        // destroyed; the writer's next records go at its position, past a hole.
        #expect(truncate(log.path, 0) == 0)
        try Data().write(to: resume)
        try #require(writer.waitForLine("done", timeout: 60), "the writer did not finish: \(writer.standardError)")
        let (ledger, whileAlive) = try InboxLedger.drainingAroundDeath(of: writer, app: app)
        #expect(try app.drain { _ in } == 0)
        #expect(ledger.acknowledged.count == 40)
        let destroyed = Set(ledger.acknowledged.sorted { $0.value < $1.value }.prefix(3).map(\.key))
        let problems = ledger.check().filter { problem in !destroyed.contains { problem.hasPrefix("\($0) (#") } }
        #expect(problems.isEmpty, "\(problems.prefix(8))")
        #expect(ledger.deliveries.count == 37, "delivered \(ledger.deliveries.count): \(whileAlive) while the writer lived")
        #expect(try HostileJournalTests.logs(app).isEmpty, "the log goes once delivered and its writer gone")
        #expect(try HostileJournalTests.quarantined(app).isEmpty, "a hole of zeros is no damage")
    }

    @Test("a whole record planted past a dead durable writer's zeros: delivered in the same drain, the zeros passed without a copy")
    func recordPastTheZeros() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        do {
            let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share))
            try writer.enqueue(SharedItem(title: "one"))
            try writer.enqueue(SharedItem(title: "two"))
        }
        try HostileJournalTests.append(HostileJournalTests.currentRecord(3, title: "three"), to: try Self.logURL(app))
        #expect(try app.pendingCount() == 2, "a record past the zeros is not counted before a drain judged it")
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one", "two", "three"])
        #expect(try HostileJournalTests.quarantined(app).isEmpty)
        #expect(try HostileJournalTests.logs(app).isEmpty)
    }

    @Test("the walk to the records' end: stops at 32 zero bytes, not at fewer; a header whose length leads into a record's zero bytes does not cut the records short")
    func walk() throws {
        let sandbox = try Sandbox()
        let file = sandbox.scratch.appendingPathComponent("walk.log")
        let one = HostileJournalTests.currentRecord(1, title: "one")
        // Number 2^32 puts four zero bytes in the header, after the length's two.
        let two = HostileJournalTests.currentRecord(1 << 32, title: "two")
        func end(_ bytes: Data, from start: Int64 = 0) throws -> JournalLogEnd.Found {
            try bytes.write(to: file)
            let open = try OpenFile.openForReading(file.path)
            defer { open.close() }
            return try JournalLogEnd.find(in: open, from: start, size: Int64(bytes.count))
        }
        let records = Int64(one.count + two.count)
        #expect(try end(one + two + Data(count: 4096)) == .init(boundary: records, end: records))
        #expect(try end(one + two) == .init(boundary: records, end: records), "no zero tail: the file's end")
        #expect(try end(one + two + Data(count: 10)) == .init(boundary: records, end: records), "zeros to the end of the file")
        // Fewer than 32 zeros, then more bytes: not the end (damage: the end is past the last byte that is not zero).
        let short = one + Data(count: 20) + two + Data(count: 4096)
        #expect(try end(short) == .init(boundary: Int64(one.count), end: Int64(short.count - 4096)))
        // A foreign header at the start claims a length that ends inside `two`'s header, on its zero bytes.
        let zeros = two.firstRange(of: Data(count: 4)).map { $0.lowerBound - two.startIndex } ?? 0
        let foreign = HostileJournalTests.currentRecord(9, title: "", payload: Data(), length: UInt32(one.count + zeros))
        let misled = foreign + one + two + Data(count: 4096)
        let found = try end(misled)
        #expect(found.end >= Int64(misled.count - 4096), "the end covers every record: \(found) of \(misled.count - 4096)")
    }
}
