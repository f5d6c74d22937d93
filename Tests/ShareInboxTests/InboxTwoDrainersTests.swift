import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// The app and its widget drain one inbox at once. Only one
/// drain delivers the journal (the consumer lock is non-blocking; the other
/// delivers `Items/` only), and it never passes a journal number it has not
/// measured: every enqueued number is delivered once, under that number, in
/// order within each drain.
@Suite("Inbox two drainers", .tags(.multiprocess), .serialized, .dedicatedThreads)
struct InboxTwoDrainersTests {
    @Test("the widget takes 299 items from under the app's drain (256 misses in a row) while a writer adds journal items then an item with an attachment: each delivered once, under the number enqueue returned, in order")
    func skipAheadMeasuresTheJournal() throws {
        let sandbox = try Sandbox()
        var ledger = InboxLedger()
        let first = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "a", "--count", "300", "--attach-every", "1",
                                          "--scratch", sandbox.scratch.path], environment: sandbox.environment(sandbox.share)).wait(timeout: 120)
        try #require(first.succeeded, "\(first.standardError)")
        ledger.acknowledge(first.outputLines)
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        var lines = ["drain"]
        var widget: ProcessOutcome?
        var second: ProcessOutcome?
        try app.drain { item in
            lines.append("got \(item.sequenceNumber) \(item.title ?? "?")")
            guard widget == nil else { return }
            // The widget drains (Items/ only: the app holds the journal) everything behind item 1...
            widget = try reliabilityProbe(["inbox-drain", "--group", Sandbox.group, "--until-empty"],
                                          environment: sandbox.environment(sandbox.app)).wait(timeout: 120)
            // ...then a writer adds ten journal items and one item with an attachment.
            second = try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "b", "--count", "11", "--attach-every", "11",
                                           "--scratch", sandbox.scratch.path], environment: sandbox.environment(sandbox.share)).wait(timeout: 120)
        }
        try app.drain { lines.append("got \($0.sequenceNumber) \($0.title ?? "?")") }
        let widgetRun = try #require(widget)
        let writerRun = try #require(second)
        #expect(widgetRun.succeeded && writerRun.succeeded, "\(widgetRun.standardError) \(writerRun.standardError)")
        ledger.acknowledge(writerRun.outputLines)
        ledger.deliver(lines, drainer: "app")
        ledger.deliver(widgetRun.outputLines, drainer: "widget")
        #expect(ledger.acknowledged.count == 311)
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8))")
        #expect(!widgetRun.outputLines.contains { $0.contains("rewound") }, "no false rewind warning")
        let app2 = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        #expect(try app2.pendingCount() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.itemsDirectory.path).isEmpty)
    }

    @Test("an app and a widget process drain at once, in loops, while 4 writer processes enqueue (journal items and attachments): every acknowledged number delivered once, under that number, in order within each drain")
    func concurrentDrainers() throws {
        let sandbox = try Sandbox()
        let perWriter = 150
        let writers = try (0..<4).map { k in
            try reliabilityProbe(["inbox-enqueue", "--group", Sandbox.group, "--id", "w\(k)", "--count", String(perWriter),
                                  "--attach-every", String(k + 2), "--scratch", sandbox.scratch.path],
                                 environment: sandbox.environment(sandbox.share))
        }
        // Each drains until told the writers are done and a drain finds nothing (every
        // 7th item's handler drains again inside: a nested drain).
        let done = sandbox.scratch.appendingPathComponent("writers-done")
        let drainers = try (0..<2).map { _ in
            try reliabilityProbe(["inbox-drainer", "--group", Sandbox.group, "--done", done.path], environment: sandbox.environment(sandbox.app))
        }
        var ledger = InboxLedger()
        for writer in writers {
            let outcome = writer.wait(timeout: 180)
            #expect(outcome.succeeded, "\(outcome.standardError)")
            ledger.acknowledge(outcome.outputLines)
        }
        try Data().write(to: done)
        for (index, drainer) in drainers.enumerated() {
            let outcome = drainer.wait(timeout: 180)
            #expect(outcome.succeeded, "\(outcome.standardError)")
            ledger.deliver(outcome.outputLines, drainer: "drainer \(index)")
            #expect(!outcome.outputLines.contains { $0.contains("rewound") }, "no false rewind warning: \(outcome.outputLines.filter { $0.hasPrefix("warning") }.prefix(2))")
        }
        #expect(ledger.acknowledged.count == 4 * perWriter)
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8))")
    }
}
