import AppGroupTesting
import Foundation
import ShareInbox
import Testing
@testable import AppGroupContainer
import AppGroupSystem
import DeviceTestSupport
import TestSupport

/// The inbox's journal log (formerly its hidden file) when its lock cannot be taken for a reason other than
/// another holder (ENOLCK, EINVAL on a file system without OFD locks, EIO): the
/// enqueue made a new hidden file and tried again, without end while the error
/// lasted, leaving every file it made behind.
@Suite("Hostile inbox: a lock that fails", .tags(.hostile, .faults), .dedicatedThreads)
struct HostileInboxLockTests {
    @Test("a lock error that is not contention: the enqueue throws it at once, leaves no hidden file, and the next enqueue works",
          arguments: [Errno(rawValue: ENOLCK), .EIO])
    func lockErrorIsThrownNotLooped(_ code: Errno) throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "first"))
        // Another instance, whose first enqueue makes (and locks) its journal log.
        let other = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let journal = inbox.directory.appendingPathComponent("Journal").path
        func logs() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: journal).filter { $0.hasSuffix(".log") } }
        let before = try logs()
        // Fails the first 50 attempts, as a lasting error would (a loop would otherwise never end).
        let failures = Locked(0)
        let plan: FaultInjection.Plan = { call, path in
            guard call == .lock, path.hasPrefix(journal + "/"), path.hasSuffix(".log") else { return nil }
            return failures.withLock { count in
                guard count < 50 else { return nil }
                count += 1
                return code
            }
        }
        #expect {
            try FaultInjection.with(plan) { try other.enqueue(SharedItem(title: "refused")) }
        } throws: { error in
            guard case AppGroupError.systemCall(_, _, let errno)? = (error as? ShareInboxError)?.containerError else { return false }
            return errno == code
        }
        #expect(failures.withLock { $0 } == 1, "the lock was tried \(failures.withLock { $0 }) times")
        let after = try logs()
        #expect(after == before, "logs left behind: \(after)")
        try other.enqueue(SharedItem(title: "second"))
        var titles: [String] = []
        try inbox.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["first", "second"])
    }

    /// Where the file system cannot rename without replacing (EINVAL), the item is
    /// published by link then unlink. The link published it: an unlink that fails
    /// after it must not make the enqueue throw, or the caller, told nothing was
    /// published, enqueues it again and it is delivered twice.
    @Test("link+unlink fallback: an unlink that fails after the link published the item returns its number; it is delivered once")
    func unlinkFailingAfterTheFallbackLinkIsNotAFailure() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let items = inbox.itemsDirectory.path
        let plan: FaultInjection.Plan = { call, path in
            if call == .renameat, path.hasPrefix(items + "/0") { return .EINVAL } // no RENAME_NOREPLACE here
            if call == .unlinkat, path.hasPrefix(items + "/.tmp-") { return .EIO }
            return nil
        }
        var number: UInt64?
        #expect(throws: Never.self) { number = try FaultInjection.with(plan) { try inbox.enqueue(SharedItem(title: "once")) } }
        var delivered: [UInt64] = []
        try inbox.drain { delivered.append($0.sequenceNumber) }
        #expect(delivered.count == 1 && delivered.first == number, "delivered \(delivered), the enqueue returned \(String(describing: number))")
        // The hidden name left behind is only a second name of the item's inode: the
        // drain that delivered the item removed it (its writer is gone).
        let hidden = try FileManager.default.contentsOfDirectory(atPath: items).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "left: \(hidden)")
    }
}
