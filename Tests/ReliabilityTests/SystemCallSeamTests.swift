import Foundation
import Testing
@testable import AppGroupContainer
@testable import SharedDefaults

/// The system-call seam itself: the hook sits inside each raw call (below the EINTR
/// retry), a trace shows the order of the calls a save makes, and a fault plan
/// belongs to the task or thread that installed it.
@Suite("System-call seam")
struct SystemCallSeamTests {
    /// The position of the first call in `calls` that `match` accepts (Int.max when none).
    static func first(_ calls: [FaultInjection.Entry], _ match: (FaultInjection.Entry) -> Bool) -> Int {
        calls.firstIndex(where: match) ?? Int.max
    }

    /// The position of the last call in `calls` that `match` accepts (-1 when none).
    static func last(_ calls: [FaultInjection.Entry], _ match: (FaultInjection.Entry) -> Bool) -> Int {
        calls.lastIndex(where: match) ?? -1
    }

    static func isTemporary(_ path: String) -> Bool { AtomicFile.isTemporaryName((path as NSString).lastPathComponent) }

    @Test("an atomic save: the temporary is written and fsynced before the rename, the directory fsynced after it")
    func atomicSaveOrder() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root.appendingPathComponent("file")
        let target = file.standardizedFileURL.path
        let directory = sandbox.root.standardizedFileURL.path
        let (calls, _) = try FaultInjection.trace { try AtomicFile.write(Data("content".utf8), to: file) }
        let write = Self.first(calls) { $0.call == .write && Self.isTemporary($0.path) }
        let fileSync = Self.first(calls) { $0.call == .fsync && Self.isTemporary($0.path) }
        let rename = Self.first(calls) { $0.call == .renameat && $0.path == target }
        let directorySync = Self.last(calls) { $0.call == .fsync && $0.path == directory }
        #expect(write < fileSync, "\(calls)")
        #expect(fileSync < rename, "the temporary's fsync comes before the rename: \(calls)")
        #expect(rename < directorySync, "the directory's fsync comes after the rename: \(calls)")
        #expect(calls.allSatisfy { $0.injected == nil })
    }

    @Test("a suite save: lock, temporary written and fsynced, rename, directory fsync, unlock, in that order")
    func suiteSaveOrder() throws {
        let sandbox = try Sandbox()
        let defaults = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        try defaults.save("before", forKey: "k")
        let suite = defaults.fileURL.standardizedFileURL.path
        let lockFile = try FileCoordinator.lockFileURL(for: defaults.fileURL).standardizedFileURL.path
        let (calls, _) = try FaultInjection.trace { try defaults.save("after", forKey: "k") }
        let lock = Self.first(calls) { $0.call == .lock && $0.path == lockFile }
        let fileSync = Self.first(calls) { $0.call == .fsync && Self.isTemporary($0.path) }
        let rename = Self.first(calls) { $0.call == .renameat && $0.path == suite }
        let directorySync = Self.last(calls) { $0.call == .fsync && $0.path == (suite as NSString).deletingLastPathComponent }
        let unlock = Self.last(calls) { $0.call == .unlock && $0.path == lockFile }
        #expect(lock < fileSync && fileSync < rename && rename < directorySync && directorySync < unlock, "\(calls)")
        #expect(try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver(sandbox.share)).load(forKey: "k") as? String == "after")
    }

    @Test("an inbox enqueue: the staged item is fsynced before it is published, Items/ fsynced after")
    func enqueueOrder() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let items = inbox.itemsDirectory.path
        let (calls, _) = try FaultInjection.trace { try inbox.enqueue(SharedItem(title: "t")) }
        let staged = Self.first(calls) { $0.call == .fsync && $0.path.contains("/Staging/") }
        let publish = Self.first(calls) { ($0.call == .link || $0.call == .rename) && $0.path.hasPrefix(items + "/") }
        let itemsSync = Self.last(calls) { $0.call == .fsync && $0.path == items }
        #expect(staged < publish, "the staged item's fsync comes before it is published: \(calls)")
        #expect(publish < itemsSync, "Items/ is fsynced after the item appears in it: \(calls)")
        #expect(try inbox.pendingCount() == 1)
    }

    /// Operations that must survive one EINTR from any of their calls.
    static let interruptible: [(String, FaultInjection.Call)] = [
        ("AtomicFile.write", .openat), ("AtomicFile.write", .write), ("AtomicFile.write", .fsync), ("AtomicFile.write", .renameat),
        ("ShareInbox.enqueue", .pwrite), ("ShareInbox.enqueue", .link), ("ShareInbox.enqueue", .open),
    ]

    @Test("EINTR injected once into a call is retried below the domain layer: the operation completes",
          arguments: interruptible.indices)
    func interruptedCallIsRetried(index: Int) throws {
        let (operation, target) = Self.interruptible[index]
        let sandbox = try Sandbox()
        let prefix = sandbox.base.path
        let injected = Tally(0)
        let plan: FaultInjection.Plan = { call, path in
            guard call == target, path.hasPrefix(prefix) else { return nil }
            return injected.update { n -> Errno? in
                n += 1
                return n == 1 ? .EINTR : nil
            }
        }
        let (calls, _) = try FaultInjection.trace {
            try FaultInjection.with(plan) {
                switch operation {
                case "AtomicFile.write":
                    try AtomicFile.write(Data("after".utf8), to: sandbox.root.appendingPathComponent("file"))
                default:
                    try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver()).enqueue(SharedItem(title: "t"))
                }
            }
        }
        #expect(injected.current >= 2, "\(operation), \(target): EINTR injected, then the call made again")
        let interrupted = calls.firstIndex { $0.injected == .EINTR }
        #expect(interrupted.map { calls[$0 + 1].call == target && calls[$0 + 1].path == calls[$0].path && calls[$0 + 1].injected == nil } == true,
                "\(operation): the interrupted \(target) is retried at once: \(calls)")
        switch operation {
        case "AtomicFile.write":
            #expect(try AtomicFile.read(sandbox.root.appendingPathComponent("file")) == Data("after".utf8))
        default:
            #expect(try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver()).pendingCount() == 1)
        }
    }

    @Test("a fault plan belongs to the thread that installed it: a save beside it, at the same moment, succeeds")
    func planIsThreadScoped() throws {
        let sandbox = try Sandbox()
        let prefix = sandbox.base.path
        let installed = DispatchSemaphore(value: 0)
        let neighbourSaved = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Tally<Error?>(nil)
        let faulty = Thread {
            FaultInjection.with({ call, path in call == .write && path.hasPrefix(prefix) ? .EIO : nil }) {
                installed.signal()
                _ = neighbourSaved.wait(timeout: .now() + 30)
                do {
                    try AtomicFile.write(Data("a".utf8), to: sandbox.root.appendingPathComponent("a"))
                } catch {
                    outcome.update { $0 = error }
                }
            }
            finished.signal()
        }
        faulty.start()
        #expect(installed.wait(timeout: .now() + 30) == .success)
        // The plan is in force on the other thread now; this one has none.
        #expect(throws: Never.self) { try AtomicFile.write(Data("b".utf8), to: sandbox.root.appendingPathComponent("b")) }
        neighbourSaved.signal()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        guard case .systemCall("write", _, .EIO)? = outcome.current as? AppGroupError else {
            Issue.record("the thread with the plan: \(String(describing: outcome.current))")
            return
        }
        #expect(try AtomicFile.read(sandbox.root.appendingPathComponent("b")) == Data("b".utf8))
    }
}
