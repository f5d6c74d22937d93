import AppGroupTesting
import Foundation
import ShareInbox
import Testing
@testable import AppGroupContainer
@testable import SharedDefaults
@testable import SharedKeychain

/// The system-call seam itself: the hook sits inside each raw call (below the EINTR
/// retry), a trace shows the order of the calls a save makes, and a fault plan
/// belongs to the task or thread that installed it.
@Suite("System-call seam", .dedicatedThreads)
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

    @Test("an inbox enqueue without attachments: a new log's creation is fsynced before its record, the record appended after its number is stored, fdatasynced after the lock")
    func enqueueOrder() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let journal = inbox.directory.appendingPathComponent("Journal").path
        let sequence = inbox.directory.appendingPathComponent("Sequence").path
        let (calls, _) = try FaultInjection.trace { try inbox.enqueue(SharedItem(title: "t")) }
        // Appended to the writer's journal log under the sequence lock (issue 14, part 5).
        let created = Self.first(calls) { $0.call == .fsync && $0.path == journal }
        let stored = Self.first(calls) { $0.call == .pwrite && $0.path == sequence }
        let append = Self.first(calls) { $0.call == .write && $0.path.hasPrefix(journal + "/") && $0.path.hasSuffix(".log") }
        let unlock = Self.last(calls) { $0.call == .unlock }
        let sync = Self.last(calls) { $0.call == .fdatasync && $0.path.hasPrefix(journal + "/") }
        #expect(created < stored, "the new log's name is durable before a record in it counts: \(calls)")
        #expect(stored < append, "the number is stored before the record is appended: \(calls)")
        #expect(append < unlock && unlock < sync, "the record's fdatasync comes after the sequence lock: \(calls)")
        let (again, _) = try FaultInjection.trace { try inbox.enqueue(SharedItem(title: "u")) }
        // Steady state (the log open, the sequence file trusted): one fdatasync, nothing else synced.
        #expect(again.filter { $0.call == .fsync || $0.call == .fdatasync }.map(\.call) == [.fdatasync], "a later enqueue: one fdatasync: \(again)")
        #expect(try inbox.pendingCount() == 2)
    }

    /// Operations that must survive one EINTR from any of their calls.
    static let interruptible: [(String, FaultInjection.Call)] = [
        ("AtomicFile.write", .openat), ("AtomicFile.write", .write), ("AtomicFile.write", .fsync), ("AtomicFile.write", .renameat),
        ("ShareInbox.enqueue", .pwrite), ("ShareInbox.enqueue", .write), ("ShareInbox.enqueue", .fdatasync), ("ShareInbox.enqueue", .openat),
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

/// Callers that used to reach the disk around the seam (Foundation's directory
/// creation, a bare read, bare inotify calls) now show up in a trace, and a plan
/// can fail them.
@Suite("System-call seam: every caller", .dedicatedThreads)
struct SystemCallSeamCallerTests {
    @Test("the keychain makes its directory through the seam: traced, and a failed mkdir is a typed error naming it")
    func keychainDirectory() throws {
        let sandbox = try Sandbox()
        let directory = sandbox.root.appendingPathComponent("Keychains").standardizedFileURL.path
        let key = GenericPassword(service: "s", account: "a")
        let refused: FaultInjection.Plan = { call, path in call == .mkdir && path == directory ? .EACCES : nil }
        let error = FaultInjection.with(refused) {
            #expect(throws: KeychainError.self) { try FaultTests.keychain(sandbox).save(Data("v".utf8), for: key) }
        }
        #expect("\(String(describing: error))".contains("mkdir(\(directory)) failed: Permission denied (EACCES"), "\(String(describing: error))")
        let (calls, _) = try FaultInjection.trace { try FaultTests.keychain(sandbox).save(Data("v".utf8), for: key) }
        #expect(calls.contains { $0.call == .mkdir && $0.path == directory }, "\(calls)")
        #expect(try FaultTests.keychain(sandbox).read(key) == Data("v".utf8))
    }

    @Test("an entitlements file is read through the seam")
    func entitlementsRead() throws {
        let sandbox = try Sandbox()
        let file = sandbox.scratch.appendingPathComponent("App.entitlements")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>com.apple.security.application-groups</key>
            <array><string>\(Sandbox.group)</string></array></dict></plist>
            """.utf8).write(to: file)
        let (calls, entitlements) = try FaultInjection.trace {
            try Entitlements(contentsOf: file, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.reliability")
        }
        #expect(entitlements.applicationGroups.map(\.rawValue) == [Sandbox.group])
        #expect(calls.map(\.call).filter { [.open, .fstat, .read].contains($0) }.first == .open, "\(calls)")
        #expect(calls.contains { $0.call == .read && $0.path == file.path }, "\(calls)")
    }

    #if os(Linux)
    @Test("a directory watcher's inotify calls go through the seam")
    func watcherCalls() throws {
        let sandbox = try Sandbox()
        let (calls, watcher) = try FaultInjection.trace { try DirectoryWatcher(directory: sandbox.root) { _ in } }
        watcher.cancel()
        #expect(calls.map(\.call).starts(with: [.inotify_init1, .inotify_add_watch, .pipe]), "\(calls)")
        let failing: FaultInjection.Plan = { call, _ in call == .inotify_add_watch ? .ENOSPC : nil }
        _ = FaultInjection.with(failing) {
            #expect(throws: AppGroupError.systemCall(operation: "inotify_add_watch", path: sandbox.root.path, errno: .ENOSPC)) {
                _ = try DirectoryWatcher(directory: sandbox.root) { _ in }
            }
        }
    }
    #endif
}
