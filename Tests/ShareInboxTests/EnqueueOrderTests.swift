import AppGroupSystem
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import ShareInbox

/// The order of an enqueue's system calls, from a trace of the seam.
@Suite("System-call order: an enqueue", .tags(.faults), .dedicatedThreads)
struct EnqueueOrderTests {
    @Test("an inbox enqueue without attachments: a new log's creation is fsynced before its record, the record appended after its number is stored, fdatasynced after the lock")
    func enqueueOrder() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let journal = inbox.directory.appendingPathComponent("Journal").path
        let sequence = inbox.directory.appendingPathComponent("Sequence").path
        let (calls, _) = try FaultInjection.trace { try inbox.enqueue(SharedItem(title: "t")) }
        // Appended to the writer's journal log under the sequence lock (issue 14, part 5).
        let created = Trace.first(calls) { $0.call == .fsync && $0.path == journal }
        let stored = Trace.first(calls) { $0.call == .pwrite && $0.path == sequence }
        let append = Trace.first(calls) { $0.call == .write && $0.path.hasPrefix(journal + "/") && $0.path.hasSuffix(".log") }
        let unlock = Trace.last(calls) { $0.call == .unlock }
        let sync = Trace.last(calls) { $0.call == .fdatasync && $0.path.hasPrefix(journal + "/") }
        #expect(created < stored, "the new log's name is durable before a record in it counts: \(calls)")
        #expect(stored < append, "the number is stored before the record is appended: \(calls)")
        #expect(append < unlock && unlock < sync, "the record's fdatasync comes after the sequence lock: \(calls)")
        let (again, _) = try FaultInjection.trace { try inbox.enqueue(SharedItem(title: "u")) }
        // Steady state (the log open, the sequence file trusted): one fdatasync, nothing else synced.
        #expect(again.filter { $0.call == .fsync || $0.call == .fdatasync }.map(\.call) == [.fdatasync], "a later enqueue: one fdatasync: \(again)")
        #expect(try inbox.pendingCount() == 2)
    }
}
