import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// Bytes a foreign process appends to a live writer's journal
/// log must cost only themselves. The drain resynchronises on the next whole,
/// checksummed record (a record's header carries its own checksum, so a length is
/// believed only once its header checks), whatever the fragment claims: a length
/// past the end, a short length, a number at the end of the counter.
@Suite("Journal resynchronisation", .tags(.hostile, .multiprocess), .serialized, .dedicatedThreads)
struct JournalResyncTests {
    /// What a foreign process appends: 24 bytes that look like a record's header.
    static func fragment(_ kind: String) -> Data {
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { HostileJournalTests.littleEndian(value) }
        switch kind {
        case "huge length": // a previous-release header claiming 1,000,000 bytes
            return Data(Array("AGJ1".utf8) + le(UInt32(1_000_000)) + le(UInt64(4)) + le(UInt64(0x1234_5678)))
        case "short length": // claims the 40 bytes after it, numbered far ahead
            return Data(Array("AGJ1".utf8) + le(UInt32(40)) + le(UInt64(1000)) + le(UInt64(0x1234_5678)))
        case "max number": // claims the 40 bytes after it, numbered UInt64.max
            return Data(Array("AGJ1".utf8) + le(UInt32(40)) + le(UInt64.max) + le(UInt64(0x1234_5678)))
        default: // a current-format header, its own checksum right, claiming 1,000,000 bytes
            return HostileJournalTests.currentRecord(4, title: "", payload: Data(), length: 1_000_000)
        }
    }

    @Test("a fragment appended by another process to a live writer's log (claiming 1,000,000 bytes, a short length, UInt64.max, a checked current header): only it is set aside; all 40 acknowledged items delivered once, under their numbers, while the writer lives",
          arguments: ["huge length", "short length", "max number", "current header"])
    func foreignFragmentInLiveLog(_ kind: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (writer, resume) = try sandbox.pausedInboxWriter(count: 40)
        defer { writer.kill() }
        try #require(writer.waitForLine("paused", timeout: 60), "the writer did not start: \(writer.standardError)")
        let log = HostileJournalTests.journal(app).appendingPathComponent(try #require(try HostileJournalTests.logs(app).first))
        let fragment = Self.fragment(kind)
        try HostileJournalTests.append(fragment, to: log) // this process is the foreign one
        try Data().write(to: resume)
        try #require(writer.waitForLine("done", timeout: 60), "the writer did not finish: \(writer.standardError)")

        let (ledger, whileAlive) = try InboxLedger.drainingAroundDeath(of: writer, app: app)
        #expect(ledger.acknowledged.count == 40)
        #expect(ledger.check().isEmpty, "\(kind): \(ledger.check().prefix(8))")
        #expect(whileAlive == 40, "\(kind): the writer's records behind the fragment flow while it lives: \(whileAlive) of 40")
        let aside = try HostileJournalTests.quarantined(app)
        #expect(aside.count == 1, "\(kind): quarantined \(aside)")
        if let first = aside.first {
            #expect(try Data(contentsOf: app.directory.appendingPathComponent("Quarantine/" + first)) == fragment,
                    "\(kind): exactly the fragment is set aside")
        }
        // The fragment moved no counter: the next enqueue (another process) follows the writer's.
        let next = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "next", "--count", "1"],
                                        environment: sandbox.environment(sandbox.share)).wait(timeout: 60)
        #expect(next.outputLines.contains("ack 41 next-1"), "\(kind): \(next.outputLines) \(next.standardError)")
        #expect(try app.pendingCount() == 1)
    }

    @Test("a log written by the previous release (AGJ1 records, its cursor part way): the records past the cursor are delivered, in order, once")
    func previousReleaseLog() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let journal = HostileJournalTests.journal(app)
        var bytes = Data()
        var offsets: [Int] = []
        for n in 1...5 {
            offsets.append(bytes.count)
            bytes += HostileJournalTests.record(UInt64(n), title: "old-\(n)")
        }
        let log = journal.appendingPathComponent("4242-00000000000000aa.log")
        try bytes.write(to: log)
        var st = stat()
        #expect(stat(log.path, &st) == 0)
        let cursor = HostileJournalTests.littleEndian(UInt64(offsets[2])) + HostileJournalTests.littleEndian(UInt64(st.st_dev))
            + HostileJournalTests.littleEndian(UInt64(st.st_ino))
        try Data(cursor).write(to: journal.appendingPathComponent("4242-00000000000000aa.cursor"))
        try AtomicFile.write(Data("unknown-boot 5\n".utf8), to: app.directory.appendingPathComponent("Sequence"), below: .marked(above: app.directory.appendingPathComponent("Sequence")))
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["old-3", "old-4", "old-5"])
        #expect(try HostileJournalTests.quarantined(app).isEmpty)
        #expect(try HostileJournalTests.logs(app).isEmpty, "the delivered log of a writer that is gone is removed")
        #expect(try app.enqueue(SharedItem(title: "new")) == 6)
    }

    @Test("many fragments crafted to cost the scan a lot (each a checked header claiming 1 MiB): the drain ends, delivers every whole record, sets aside only the fragments")
    func craftedFragmentsAreBounded() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let journal = HostileJournalTests.journal(app)
        var bytes = Data()
        var fragments = Data()
        // 1.5 MiB of zeros behind: every fragment's claimed length fits in the log.
        for n in 1...200 {
            let fragment = HostileJournalTests.currentRecord(UInt64(n) + 5000, title: "", payload: Data(), length: 1 << 20)
            fragments += fragment
            bytes += fragment
        }
        bytes += HostileJournalTests.currentRecord(1, title: "one")
        bytes += Data(count: 3 << 19)
        bytes += HostileJournalTests.currentRecord(2, title: "two")
        try bytes.write(to: journal.appendingPathComponent("4343-00000000000000bb.log"))
        try AtomicFile.write(Data("unknown-boot 2\n".utf8), to: app.directory.appendingPathComponent("Sequence"), below: .marked(above: app.directory.appendingPathComponent("Sequence")))
        let started = Date()
        var titles: [String] = []
        for _ in 0..<20 { // a drain may stop early on such a log; each one makes progress
            try app.drain { titles.append($0.title ?? "?") }
            if titles.count == 2 { break }
        }
        #expect(titles == ["one", "two"])
        #expect(Date().timeIntervalSince(started) < 120, "bounded work")
        // In the order of their offsets in the log (the number after the last "-").
        let aside = try HostileJournalTests.quarantined(app).sorted { (Int($0.split(separator: "-").last ?? "") ?? 0) < (Int($1.split(separator: "-").last ?? "") ?? 0) }
        let kept = try aside.reduce(Data()) { $0 + (try Data(contentsOf: app.directory.appendingPathComponent("Quarantine/" + $1))) }
        #expect(kept.prefix(fragments.count) == fragments, "the fragments are kept, whole")
        #expect(try app.pendingCount() == 0)
    }
}
