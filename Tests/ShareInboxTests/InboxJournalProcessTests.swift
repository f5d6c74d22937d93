import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// The journal with real processes. Four extensions enqueue
/// (every third item with an attachment, so journal records and items in `Items/`
/// interleave) while two app processes drain, each sometimes draining again inside
/// its handler: every item is delivered exactly once, and within one drain in
/// increasing number order.
@Suite("Inbox journal across processes", .tags(.multiprocess), .dedicatedThreads)
struct InboxJournalProcessTests {
    @Test("4 enqueuing processes, 2 draining processes and nested drains: exactly once, in order within each drain")
    func exactlyOnceAndOrdered() throws {
        let sandbox = try Sandbox()
        let perWriter = 60
        let done = sandbox.scratch.appendingPathComponent("writers-done")
        let drainers = try (0..<2).map { _ in
            try reliabilityProbe(["inbox-drainer", "--group", Sandbox.group, "--done", done.path], environment: sandbox.environment(sandbox.app))
        }
        let writers = try (0..<4).map { k in
            try reliabilityProbe(["inbox-writer", "--group", Sandbox.group, "--id", "w\(k)", "--count", String(perWriter), "--scratch", sandbox.scratch.path],
                                 environment: sandbox.environment(sandbox.share))
        }
        for writer in writers {
            let outcome = writer.wait(timeout: 120)
            #expect(outcome.succeeded, "\(outcome.standardError)")
        }
        try Data().write(to: done)
        var seen: [String: Int] = [:]
        for drainer in drainers {
            let outcome = drainer.wait(timeout: 120)
            #expect(outcome.succeeded, "\(outcome.standardError)")
            // Numbers increase within each drain (outer and nested alike).
            var last: UInt64 = 0
            var stack: [UInt64] = []
            for line in outcome.outputLines {
                if line == "drain" { last = 0 } else if line == "nested" { stack.append(last); last = 0 }
                if line == "drain", let outer = stack.popLast() { last = outer }
                guard line.hasPrefix("got ") else { continue }
                let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard parts.count == 3, let number = UInt64(parts[1]) else { continue }
                #expect(number > last, "out of order within a drain: \(number) after \(last)")
                last = number
                seen[parts[2], default: 0] += 1
            }
        }
        let expected = Set((0..<4).flatMap { k in (1...perWriter).map { "w\(k)-\($0)" } })
        #expect(Set(seen.keys) == expected, "missing \(expected.subtracting(seen.keys).sorted().prefix(10))")
        #expect(seen.values.allSatisfy { $0 == 1 }, "delivered twice: \(seen.filter { $0.value > 1 }.keys.sorted())")
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        #expect(try inbox.pendingCount() == 0)
    }
}
