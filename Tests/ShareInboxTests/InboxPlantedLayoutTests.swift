import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// Something planted where one of the inbox's own entries
/// belongs (`Journal/`, `Items/`, `Staging/`, `Claims/`, `Quarantine/`, the
/// `Sequence` file) must never stop the inbox: opening it (`ShareInbox.init`), an
/// enqueue and a drain set the thing aside in `Quarantine/` (never following it)
/// and make the entry again, and every item flows.
@Suite("Inbox planted layout", .tags(.hostile, .multiprocess), .serialized, .dedicatedThreads)
struct InboxPlantedLayoutTests {
    static let entries = ["Journal", "Items", "Staging", "Claims", "Quarantine", "Sequence"]
    /// "wrong kind": a regular file where a directory belongs (a directory for Sequence).
    static let kinds = ["wrong kind", "symlink", "fifo"]

    /// Replaces `entry` of `inbox` (empty, or the Sequence file) with a `kind`.
    static func plant(_ kind: String, at entry: String, of inbox: ShareInbox, sandbox: Sandbox) throws {
        let url = inbox.directory.appendingPathComponent(entry)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) } // Sequence comes with the first enqueue
        switch kind {
        case "wrong kind":
            if entry == "Sequence" {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            } else {
                try Data("planted".utf8).write(to: url)
            }
        case "symlink":
            let target = sandbox.outside.appendingPathComponent("target-" + entry)
            if entry == "Sequence" { try Data("unknown-boot 1\n".utf8).write(to: target) } else {
                try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            }
            try FileManager.default.createSymbolicLink(at: url, withDestinationURL: target)
        default:
            #expect(mkfifo(url.path, 0o600) == 0)
        }
    }

    /// What a planted link to `outside/` points at, path and bytes: nothing may be written through it.
    static func outsideState(_ sandbox: Sandbox) -> [String] {
        sandbox.outsideContents().map { name in
            let data = FileManager.default.contents(atPath: sandbox.outside.appendingPathComponent(name).path)
            return name + ":" + (data.map { String(decoding: $0, as: UTF8.self) } ?? "-")
        }
    }

    @Test("planted before a writer process opens the inbox: the writer enqueues (journal and attachments), a drainer process delivers every acknowledged item once, the planted thing is set aside, a link never followed",
          arguments: entries, kinds)
    func plantedBeforeProcessesStart(_ entry: String, _ kind: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        try Self.plant(kind, at: entry, of: app, sandbox: sandbox)
        let outside = Self.outsideState(sandbox)
        let writer = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "w", "--count", "4", "--attach-every", "2",
                                           "--scratch", sandbox.scratch.path], environment: sandbox.environment(sandbox.share)).wait(timeout: 60)
        #expect(writer.succeeded, "\(entry) \(kind): the writer: \(writer.outputLines.suffix(2)) \(writer.standardError)")
        let drainer = try reliabilityProbe(["inbox-drain", "--group", Sandbox.group, "--until-empty"],
                                           environment: sandbox.environment(sandbox.app)).wait(timeout: 60)
        #expect(drainer.succeeded, "\(entry) \(kind): \(drainer.standardError)")
        var ledger = InboxLedger()
        ledger.acknowledge(writer.outputLines)
        ledger.deliver(drainer.outputLines, drainer: "drainer")
        #expect(ledger.acknowledged.count == 4, "\(entry) \(kind): \(writer.outputLines)")
        #expect(ledger.check().isEmpty, "\(entry) \(kind): \(ledger.check()); drainer: \(drainer.outputLines.filter { !$0.hasPrefix("got") })")
        #expect(!drainer.outputLines.contains { $0.hasPrefix("error") }, "\(entry) \(kind): \(drainer.outputLines.filter { $0.hasPrefix("error") })")
        #expect(Self.outsideState(sandbox) == outside, "\(entry) \(kind): nothing is written through a link")
        var status = stat()
        #expect(lstat(app.directory.appendingPathComponent(entry).path, &status) == 0
                && (status.st_mode & S_IFMT) == (entry == "Sequence" ? S_IFREG : S_IFDIR), "\(entry) \(kind): made again")
        let aside = try HostileJournalTests.quarantined(app)
        #expect(aside.contains { $0.contains(entry) }, "\(entry) \(kind): set aside in Quarantine/: \(aside)")
    }

    @Test("planted while a writer instance lives (after its first enqueues): its next enqueues, with and without attachments, still work and the items flow",
          arguments: entries, kinds)
    func plantedUnderALiveWriter(_ entry: String, _ kind: String) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        let file = sandbox.scratch.appendingPathComponent("photo.jpg")
        try Data("jpeg".utf8).write(to: file)
        var lines: [String] = []
        func enqueue(_ title: String, attached: Bool) {
            do {
                let number = try writer.enqueue(SharedItem(title: title, attachments: attached ? [.init(fileURL: file)] : []))
                lines.append("ack \(number) \(title)")
            } catch {
                Issue.record("\(entry) \(kind): enqueue \(title): \(error)")
            }
        }
        enqueue("before-1", attached: false)
        enqueue("before-2", attached: true)
        var delivered = ["drain"]
        try app.drain { delivered.append("got \($0.sequenceNumber) \($0.title ?? "?")") }
        // (Planting removes what is there: for Journal/, the writer's delivered, open log.)
        try Self.plant(kind, at: entry, of: app, sandbox: sandbox)
        let outside = Self.outsideState(sandbox)
        enqueue("after-1", attached: false)
        enqueue("after-2", attached: true)
        let drainer = try reliabilityProbe(["inbox-drain", "--group", Sandbox.group, "--until-empty"],
                                           environment: sandbox.environment(sandbox.app)).wait(timeout: 60)
        #expect(drainer.succeeded, "\(entry) \(kind): \(drainer.standardError)")
        var ledger = InboxLedger()
        ledger.acknowledge(lines)
        ledger.deliver(delivered, drainer: "app")
        ledger.deliver(drainer.outputLines, drainer: "drainer")
        #expect(ledger.acknowledged.count == 4, "\(entry) \(kind): \(lines)")
        #expect(ledger.check().isEmpty, "\(entry) \(kind): \(ledger.check()); drainer: \(drainer.outputLines.filter { !$0.hasPrefix("got") })")
        #expect(Self.outsideState(sandbox) == outside, "\(entry) \(kind): nothing is written through a link")
    }
}
