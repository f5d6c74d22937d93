@testable import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import AppGroupSystem
import DeviceTestSupport
import TestSupport

/// A transient error (EMFILE, ENFILE, ENOMEM, EINTR, EIO) is
/// never taken for damage. A drain short of descriptors leaves every log and item
/// where it is (skipped for this drain, with a warning) and never records a
/// delivery it cannot make; nothing goes to `Quarantine/`.
@Suite("Inbox transient errors", .tags(.faults, .multiprocess), .serialized, .dedicatedThreads)
struct JournalTransientErrorTests {
    /// Runs `count` writer processes (`inbox-enqueue`, `perWriter` items each, every
    /// `attachEvery`-th with an attachment), a few at a time, and notes their acks.
    static func write(_ sandbox: Sandbox, writers count: Int, perWriter: Int, attachEvery: Int = 0, into ledger: inout InboxLedger) throws {
        for batch in stride(from: 0, to: count, by: 10) {
            let writers = try (batch..<min(count, batch + 10)).map { k in
                try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "w\(k)", "--count", String(perWriter),
                                      "--attach-every", String(attachEvery), "--scratch", sandbox.scratch.path],
                                     environment: sandbox.environment(sandbox.share))
            }
            for writer in writers {
                let outcome = writer.wait(timeout: 120)
                try #require(outcome.succeeded, "writer: \(outcome.standardError)")
                ledger.acknowledge(outcome.outputLines)
            }
        }
    }

    @Test("a drain in a process whose RLIMIT_NOFILE is 64, over 70 writers' logs: every acknowledged item delivered once, under its number, nothing set aside")
    func drainUnderDescriptorLimit() throws {
        let sandbox = try Sandbox()
        var ledger = InboxLedger()
        try Self.write(sandbox, writers: 70, perWriter: 2, into: &ledger)
        let drainer = try reliabilityProbe(["inbox-drain", "--group", Sandbox.group, "--nofile", "64", "--until-empty"],
                                           environment: sandbox.environment(sandbox.app)).wait(timeout: 300)
        #expect(drainer.succeeded, "\(drainer.standardError)")
        ledger.deliver(drainer.outputLines, drainer: "limited drainer")
        #expect(ledger.acknowledged.count == 140)
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8))")
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        #expect(try HostileJournalTests.quarantined(app).isEmpty, "nothing is set aside for want of descriptors")
        #expect(!drainer.outputLines.contains { $0.hasPrefix("warning") && $0.contains("Quarantine") }, "\(drainer.outputLines.filter { $0.hasPrefix("warning") }.prefix(3))")
        #expect(try app.drain { _ in } == 0)
    }

    @Test("a handler that uses up every descriptor (EMFILE) and returns: its item is recorded delivered (never again); the journal logs and Items/ items behind it stay in place for the next drain; nothing set aside")
    func handlerExhaustsDescriptors() throws {
        let sandbox = try Sandbox()
        var ledger = InboxLedger()
        try Self.write(sandbox, writers: 3, perWriter: 4, attachEvery: 2, into: &ledger)
        for hogAt in [1, 2] { // a journal item first, then (after it) an item in Items/
            let drainer = try reliabilityProbe(["inbox-drain", "--group", Sandbox.group, "--nofile", "256", "--hog-at", String(hogAt), "--max", "3"],
                                               environment: sandbox.environment(sandbox.app)).wait(timeout: 120)
            #expect(drainer.succeeded, "\(drainer.standardError)")
            #expect(drainer.outputLines.contains { $0.hasPrefix("hogged ") }, "\(drainer.outputLines)")
            ledger.deliver(drainer.outputLines, drainer: "hogging drainer \(hogAt)")
        }
        let rest = try reliabilityProbe(["inbox-drain", "--group", Sandbox.group, "--until-empty"],
                                        environment: sandbox.environment(sandbox.app)).wait(timeout: 120)
        #expect(rest.succeeded, "\(rest.standardError)")
        ledger.deliver(rest.outputLines, drainer: "drainer")
        #expect(ledger.acknowledged.count == 12)
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8))")
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        #expect(try HostileJournalTests.quarantined(app).isEmpty, "nothing is set aside for want of descriptors")
    }

    @Test("EIO, ENOMEM, EMFILE or ENFILE reading an item's record in Items/ or opening a journal log: left in place, delivered by the next drain, nothing set aside",
          arguments: [Errno.EIO, .ENOMEM, .EMFILE, .ENFILE])
    func transientReadErrors(_ code: Errno) throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        let file = sandbox.scratch.appendingPathComponent("photo.jpg")
        try Data("jpeg".utf8).write(to: file)
        var expected: [UInt64] = []
        do {
            let writer = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
            expected.append(try writer.enqueue(SharedItem(title: "plain")))
            expected.append(try writer.enqueue(SharedItem(title: "with file", attachments: [.init(fileURL: file)])))
            expected.append(try writer.enqueue(SharedItem(title: "plain again")))
        }
        // The first drain cannot open logs or read records; the second can.
        let plan: FaultInjection.Plan = { call, path in
            (call == .open || call == .openat) && (path.hasSuffix(".log") || path.hasSuffix("/item.json")) ? code : nil
        }
        var got: [UInt64] = []
        _ = try? FaultInjection.with(plan) { try app.drain { got.append($0.sequenceNumber) } }
        #expect(got.isEmpty, "\(code): \(got)")
        #expect(try HostileJournalTests.quarantined(app).isEmpty, "\(code): nothing is set aside")
        try app.drain { got.append($0.sequenceNumber) }
        #expect(got == expected, "\(code): \(got)")
        #expect(try HostileJournalTests.quarantined(app).isEmpty)
    }
}
