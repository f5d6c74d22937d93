import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// Nothing unchecked moves the inbox's counter, and nothing
/// planted (a whole, checked record or an item in `Items/` numbered at the end of
/// the counter) bricks every writer: such a number is not believed, its item is
/// kept under a fresh one. Only the `Sequence` file itself, set by hand near its
/// end, stops enqueues, with an error that says what to do.
@Suite("Inbox counter", .tags(.hostile, .multiprocess), .serialized, .dedicatedThreads)
struct JournalCounterTests {
    /// One writer process enqueues three items without attachments and ends (its
    /// log's lock goes); returns their numbers and the log.
    static func deadWriter(_ sandbox: Sandbox, _ app: ShareInbox) throws -> (numbers: [UInt64], log: URL) {
        let outcome = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "w", "--count", "3"],
                                           environment: sandbox.environment(sandbox.share)).wait(timeout: 60)
        try #require(outcome.succeeded, "\(outcome.standardError)")
        var ledger = InboxLedger()
        ledger.acknowledge(outcome.outputLines)
        let log = HostileJournalTests.journal(app).appendingPathComponent(try #require(try HostileJournalTests.logs(app).first))
        return (ledger.acknowledged.values.sorted(), log)
    }

    /// A record numbered UInt64.max, in the previous release's framing or the current one.
    static func planted(_ format: String, checksumRight: Bool) -> Data {
        let checksum: UInt64? = checksumRight ? nil : 42
        return format == "AGJ1" ? HostileJournalTests.record(.max, title: "planted", checksum: checksum)
            : HostileJournalTests.currentRecord(.max, title: "planted", checksum: checksum)
    }

    /// Another writer process enqueues one item; returns the number it was given, or its error.
    static func nextEnqueue(_ sandbox: Sandbox) throws -> String {
        let outcome = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "next", "--count", "1"],
                                           environment: sandbox.environment(sandbox.share)).wait(timeout: 60)
        return outcome.outputLines.first { $0.hasPrefix("ack ") || $0.hasPrefix("error ") } ?? outcome.standardError
    }

    @Test("a record numbered UInt64.max whose checksum fails: set aside before its number counts; the drain delivers the rest and every process enqueues on",
          arguments: ["AGJ1", "AGJ2"])
    func uncheckedMaximum(_ format: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (numbers, log) = try Self.deadWriter(sandbox, app)
        try HostileJournalTests.append(Self.planted(format, checksumRight: false), to: log)
        var got: [UInt64] = []
        try app.drain { got.append($0.sequenceNumber) }
        #expect(got == numbers)
        #expect(try HostileJournalTests.quarantined(app).count == 1)
        #expect(try Self.nextEnqueue(sandbox) == "ack 4 next-1")
    }

    @Test("the same record while the Sequence file is not trusted (another boot's): the scan for the highest number skips it; enqueues go on from the highest real one",
          arguments: ["AGJ1", "AGJ2"])
    func uncheckedMaximumInTheScan(_ format: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (_, log) = try Self.deadWriter(sandbox, app)
        try HostileJournalTests.append(Self.planted(format, checksumRight: false), to: log)
        try AtomicFile.write(Data("another-boot 00000000000000000001\n".utf8), to: app.directory.appendingPathComponent("Sequence"), below: .marked(above: app.directory.appendingPathComponent("Sequence")))
        #expect(try Self.nextEnqueue(sandbox) == "ack 4 next-1")
        #expect(try app.pendingCount() == 4, "the unchecked record counts as nothing")
    }

    @Test("a whole, checked record numbered UInt64.max planted by someone else: delivered under a fresh number with a warning, never raising the counter to its end",
          arguments: ["AGJ1", "AGJ2"])
    func checkedMaximum(_ format: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (numbers, log) = try Self.deadWriter(sandbox, app)
        try HostileJournalTests.append(Self.planted(format, checksumRight: true), to: log)
        var items: [(UInt64, String)] = []
        try app.drain { items.append(($0.sequenceNumber, $0.title ?? "?")) }
        #expect(items.map(\.0).prefix(3) == numbers[...], "\(items)")
        #expect(items.count == 4 && items[3].1 == "planted" && items[3].0 == 4, "kept under the next number: \(items)")
        #expect(try Self.nextEnqueue(sandbox) == "ack 5 next-1")
    }

    @Test("an item planted in Items/ named 18446744073709551615 (UInt64.max): delivered under a fresh number, the counter stays; enqueues go on")
    func plantedItemAtTheEnd() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let (numbers, _) = try Self.deadWriter(sandbox, app)
        try HostileJournalTests.payload(title: "planted").write(to: app.itemsDirectory.appendingPathComponent(String(UInt64.max)))
        var items: [(UInt64, String)] = []
        try app.drain { items.append(($0.sequenceNumber, $0.title ?? "?")) }
        #expect(items.map(\.0).prefix(3) == numbers[...], "\(items)")
        #expect(items.count == 4 && items[3].1 == "planted" && items[3].0 == 4, "\(items)")
        #expect(try Self.nextEnqueue(sandbox) == "ack 5 next-1")
    }

    @Test("the Sequence file itself set to UInt64.max: enqueue throws inboxSequenceExhausted, whose message says what happened and what to do")
    func sequenceFileAtTheEnd() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try AtomicFile.write(Data("\(boot) \(UInt64.max)\n".utf8), to: app.directory.appendingPathComponent("Sequence"), below: .marked(above: app.directory.appendingPathComponent("Sequence")))
        #expect {
            try app.enqueue(SharedItem(title: "one"))
        } throws: { error in
            guard case ShareInboxError.inboxSequenceExhausted? = error as? ShareInboxError else { return false }
            let text = "\(error)"
            return text.contains("drain the inbox") && text.contains("remove") && text.contains("Sequence")
        }
    }
}
