import AppGroupTesting
import Foundation
import ShareInbox
import Testing
@testable import AppGroupContainer
import AppGroupSystem
import DeviceTestSupport
import TestSupport

/// The share inbox's journal (`Journal/<pid>-<hex>.log`) attacked
/// as an outsider would: crafted records, cursors and entries, a log moved away
/// between two enqueues, thousands of logs. Each case: no crash, no hang, what is
/// unreadable copied to `Quarantine/`, everything readable delivered.
@Suite("Hostile journal", .tags(.hostile, .faults), .dedicatedThreads)
struct HostileJournalTests {
    /// Bytes of a record as the journal frames it (AGJ1, length, number, FNV-1a, payload).
    static func record(_ number: UInt64, title: String, checksum: UInt64? = nil, length: UInt32? = nil) -> Data {
        let payload = Data(#"{"attachments":[],"date":0,"kind":"public.url","title":"\#(title)","version":1}"#.utf8)
        var data = Data("AGJ1".utf8)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let len = UInt32(payload.count)
        var bytes: [UInt8] = []
        withUnsafeBytes(of: len.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
        for byte in bytes + Array(payload) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        put(length ?? len)
        put(number)
        put(checksum ?? hash)
        data.append(payload)
        return data
    }

    /// An item's JSON record, as the journal's payload.
    static func payload(title: String) -> Data {
        Data(#"{"attachments":[],"date":0,"kind":"public.url","title":"\#(title)","version":1}"#.utf8)
    }

    /// 64-bit FNV-1a of `bytes`.
    static func fnv(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    /// Bytes of a record in the current framing (AGJ2: magic, length, number, the
    /// record's FNV-1a over length, number and payload, then the header's FNV-1a
    /// over the 24 bytes before it, then the payload). `length`, `checksum` and
    /// `headerChecksum` override what is stored.
    static func currentRecord(_ number: UInt64, title: String, payload: Data? = nil, checksum: UInt64? = nil, length: UInt32? = nil,
                              headerChecksum: UInt64? = nil) -> Data {
        let body = payload ?? Self.payload(title: title)
        let stored = length ?? UInt32(body.count)
        let sum = checksum ?? fnv(littleEndian(UInt32(body.count)) + littleEndian(number) + Array(body))
        let head = Array("AGJ2".utf8) + littleEndian(stored) + littleEndian(number) + littleEndian(sum)
        return Data(head + littleEndian(headerChecksum ?? fnv(head))) + body
    }

    static func journal(_ inbox: ShareInbox) -> URL { inbox.directory.appendingPathComponent("Journal") }
    static func logs(_ inbox: ShareInbox) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: journal(inbox).path).filter { $0.hasSuffix(".log") }.sorted()
    }
    static func quarantined(_ inbox: ShareInbox) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent("Quarantine").path).sorted()
    }
    static func append(_ data: Data, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }

    @Test("damage in a dead writer's log (bad magic, huge length, checksum mismatch, cut short, a number repeated or going back): quarantined, the rest delivered",
          arguments: ["bad magic", "huge length", "checksum", "cut short", "repeat", "backwards"])
    func craftedRecords(_ damage: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        do {
            let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
            try writer.enqueue(SharedItem(title: "one"))
            try writer.enqueue(SharedItem(title: "two"))
        } // the writer's instance ends: its log's lock goes
        let log = Self.journal(app).appendingPathComponent(try #require(try Self.logs(app).first))
        let crafted: Data
        switch damage {
        case "bad magic": crafted = Data("XXXX".utf8) + Self.record(3, title: "x").dropFirst(4)
        case "huge length": crafted = Self.record(3, title: "x", length: .max)
        case "checksum": crafted = Self.record(3, title: "x", checksum: 42)
        case "cut short": crafted = Self.record(3, title: "x").prefix(30)
        case "repeat": crafted = Self.record(2, title: "two again")
        default: crafted = Self.record(1, title: "one again")
        }
        // A whole good record follows the damage (but after a cut-short tail, nothing can).
        let good = damage == "cut short" ? Data() : Self.record(3, title: "three")
        try Self.append(crafted + good, to: log)
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one", "two"] + (good.isEmpty ? [] : ["three"]), "\(damage): \(titles)")
        let aside = try Self.quarantined(app)
        #expect(aside.count == 1 && aside.first?.hasPrefix(log.lastPathComponent) == true, "\(damage): quarantined \(aside)")
        if let first = aside.first {
            let kept = try Data(contentsOf: app.directory.appendingPathComponent("Quarantine/" + first))
            #expect(kept == crafted, "\(damage): the unreadable bytes are kept whole, nothing more")
        }
        #expect(try app.drain { _ in } == 0)
        #expect(try Self.logs(app).isEmpty, "the delivered log of a dead writer is removed")
    }

    @Test("a live writer's log ending mid-record: left for later; once the writer appends again, the junk is set aside and every item flows")
    func liveWriterMidRecord() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try writer.enqueue(SharedItem(title: "one"))
        let log = Self.journal(app).appendingPathComponent(try #require(try Self.logs(app).first))
        let partial = Self.record(2, title: "torn").prefix(30)
        try Self.append(partial, to: log)
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one"])
        #expect(try Self.quarantined(app).isEmpty, "a live writer's tail is not judged yet")
        try writer.enqueue(SharedItem(title: "two"))
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one", "two"])
        #expect(try Self.quarantined(app).count == 1)
    }

    @Test("a cursor crafted or corrupt (short, another inode's, past the end, a link): a warning, the log read again from its start, nothing lost",
          arguments: ["short", "inode", "past", "link"])
    func craftedCursor(_ kind: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try writer.enqueue(SharedItem(title: "one"))
        #expect(try app.drain { _ in } == 1)
        try writer.enqueue(SharedItem(title: "two"))
        let logName = try #require(try Self.logs(app).first)
        let cursor = Self.journal(app).appendingPathComponent(String(logName.dropLast(4)) + ".cursor")
        var data = try Data(contentsOf: cursor)
        try #require(data.count == 24)
        try FileManager.default.removeItem(at: cursor)
        switch kind {
        case "short": data = data.prefix(5)
        case "inode": data.replaceSubrange(16..<24, with: [UInt8](repeating: 0xAB, count: 8))
        case "past": data.replaceSubrange(0..<8, with: [UInt8](repeating: 0x7F, count: 8))
        default: data = Data()
        }
        if kind == "link" {
            try FileManager.default.createSymbolicLink(at: cursor, withDestinationURL: sandbox.outside.appendingPathComponent("target"))
        } else {
            try data.write(to: cursor)
        }
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        // Redelivery rather than loss: "one" comes again, "two" comes.
        #expect(titles == ["one", "two"], "\(kind): \(titles)")
        #expect(sandbox.outsideContents().isEmpty)
        #expect(try app.pendingCount() == 0)
    }

    @Test("a symbolic link or a FIFO named x.log: set aside, never followed or opened blocking; the items flow")
    func notALog() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        try "secret".write(to: sandbox.outside.appendingPathComponent("precious"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: Self.journal(app).appendingPathComponent("link.log"),
                                                   withDestinationURL: sandbox.outside.appendingPathComponent("precious"))
        #expect(mkfifo(Self.journal(app).appendingPathComponent("fifo.log").path, 0o600) == 0)
        try app.enqueue(SharedItem(title: "one"))
        #expect(try app.pendingCount() == 1)
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one"])
        #expect(try Self.quarantined(app).count == 2)
        #expect(sandbox.outsideContents() == ["precious"])
    }

    @Test("a foreign process removes, then renames, a live writer's log between two enqueues: the next enqueue starts a new log and loses nothing")
    func logMovedAway() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try writer.enqueue(SharedItem(title: "one"))
        #expect(try app.drain { _ in } == 1)
        try FileManager.default.removeItem(at: Self.journal(app).appendingPathComponent(try #require(try Self.logs(app).first)))
        try writer.enqueue(SharedItem(title: "two"))
        let second = try #require(try Self.logs(app).first)
        try FileManager.default.moveItem(at: Self.journal(app).appendingPathComponent(second), to: Self.journal(app).appendingPathComponent("moved.log"))
        try writer.enqueue(SharedItem(title: "three"))
        var titles: [String] = []
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["two", "three"])
    }

    @Test("10,000 tiny logs: drained in order, within descriptor limits, and removed")
    func manyLogs() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        do { // a writer that ends: its log goes with the drain
            try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false).enqueue(SharedItem(title: "setup"))
        }
        _ = try app.drain { _ in }
        let count = 10_000
        for i in 1...count {
            let name = Self.journal(app).appendingPathComponent(String(format: "9-%016x.log", i))
            try Self.record(UInt64(1 + i), title: "t\(i)").write(to: name)
        }
        try AtomicFile.write(Data("unknown-boot 1\n".utf8), to: app.directory.appendingPathComponent("Sequence"), below: .marked(above: app.directory.appendingPathComponent("Sequence")))
        #expect(try app.pendingCount() == count)
        var numbers: [UInt64] = []
        try app.drain { numbers.append($0.sequenceNumber) }
        #expect(numbers == (2...UInt64(count + 1)).map { $0 })
        #expect(try Self.logs(app).isEmpty)
    }

    @Test("the fdatasync after the append fails: notDurable (the item is published and delivered once), and the next enqueue works")
    func appendSyncFails() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "one"))
        let plan: FaultInjection.Plan = { call, path in call == .fdatasync && path.hasSuffix(".log") ? .EIO : nil }
        #expect {
            try FaultInjection.with(plan) { try inbox.enqueue(SharedItem(title: "two")) }
        } throws: { error in
            if case AppGroupError.notDurable? = (error as? ShareInboxError)?.containerError { return true }
            return false
        }
        try inbox.enqueue(SharedItem(title: "three"))
        var titles: [String] = []
        try inbox.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one", "two", "three"])
    }

    @Test("non-durable enqueues and drains make no fsync at all")
    func nonDurableSyncsNothing() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (calls, _) = try FaultInjection.trace {
            for i in 1...5 { try inbox.enqueue(SharedItem(title: "n\(i)")) }
            return try inbox.drain { _ in }
        }
        let syncs = calls.filter { $0.call == .fsync || $0.call == .fdatasync }
        #expect(syncs.isEmpty, "\(syncs)")
    }
}
