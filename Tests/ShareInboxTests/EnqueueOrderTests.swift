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
        // Appended to the writer's journal log under the sequence lock.
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

    @Test("an enqueue and a drain stat the files they write in place (the sequence file, the logs, the cursors) only without their times")
    func noTimedStatOfFilesWrittenInPlace() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let journal = inbox.directory.appendingPathComponent("Journal").path
        let sequence = inbox.directory.appendingPathComponent("Sequence").path
        try inbox.enqueue(SharedItem(title: "first"))
        // A stat that reads a file's times makes its next write dirty the inode
        // (multigrain timestamps): a third of four writers' throughput on ext4.
        func writtenInPlace(_ path: String) -> Bool {
            path == sequence || (path.hasPrefix(journal + "/") && (path.hasSuffix(".log") || path.hasSuffix(".cursor")))
        }
        let timed: Set<FaultInjection.Call> = [.stat, .lstat, .fstat, .fstatat]
        let (enqueue, _) = try FaultInjection.trace { try inbox.enqueue(SharedItem(title: "second")) }
        #expect(enqueue.contains { $0.call == .statx && $0.path == sequence }, "the sequence file's identity is still checked: \(enqueue)")
        #expect(enqueue.contains { $0.call == .statx && $0.path.hasSuffix(".log") }, "the log's identity is still checked: \(enqueue)")
        #expect(!enqueue.contains { timed.contains($0.call) && writtenInPlace($0.path) }, "\(enqueue)")
        let (drain, delivered) = try FaultInjection.trace { try inbox.drain { _ in } }
        #expect(delivered == 2)
        #expect(drain.contains { $0.call == .pwrite && $0.path.hasSuffix(".cursor") }, "the drain moved a cursor: \(drain)")
        #expect(!drain.contains { timed.contains($0.call) && writtenInPlace($0.path) }, "\(drain)")
    }
}
