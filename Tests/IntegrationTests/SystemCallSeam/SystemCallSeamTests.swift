import AppGroupTesting
import Foundation
import ShareInbox
import Testing
@testable import AppGroupContainer
@testable import SharedKeychain
import AppGroupSystem
import TestSupport
import DeviceTestSupport

/// The system-call seam itself: the hook sits inside each raw call (below the EINTR
/// retry), and a fault plan belongs to the task or thread that installed it. (What a
/// trace shows of each save's order: AtomicSaveOrderTests, SuiteSaveOrderTests and
/// EnqueueOrderTests, beside the tests of their modules.)
@Suite("System-call seam", .tags(.faults), .dedicatedThreads)
struct SystemCallSeamTests {
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
                    try AtomicFile.write(Data("after".utf8), to: sandbox.root.appendingPathComponent("file"), below: .marked(above: sandbox.root.appendingPathComponent("file")))
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
            #expect(try AtomicFile.read(sandbox.root.appendingPathComponent("file"), below: .marked(above: sandbox.root.appendingPathComponent("file"))) == Data("after".utf8))
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
                    try AtomicFile.write(Data("a".utf8), to: sandbox.root.appendingPathComponent("a"), below: .marked(above: sandbox.root.appendingPathComponent("a")))
                } catch {
                    outcome.update { $0 = error }
                }
            }
            finished.signal()
        }
        faulty.start()
        #expect(installed.wait(timeout: .now() + 30) == .success)
        // The plan is in force on the other thread now; this one has none.
        #expect(throws: Never.self) { try AtomicFile.write(Data("b".utf8), to: sandbox.root.appendingPathComponent("b"), below: .marked(above: sandbox.root.appendingPathComponent("b"))) }
        neighbourSaved.signal()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        guard case .systemCall("write", _, .EIO)? = outcome.current as? AppGroupError else {
            Issue.record("the thread with the plan: \(String(describing: outcome.current))")
            return
        }
        #expect(try AtomicFile.read(sandbox.root.appendingPathComponent("b"), below: .marked(above: sandbox.root.appendingPathComponent("b"))) == Data("b".utf8))
    }
}

/// Callers that used to reach the disk around the seam (Foundation's directory
/// creation, a bare read, bare inotify calls) now show up in a trace, and a plan
/// can fail them.
@Suite("System-call seam: every caller", .tags(.faults), .dedicatedThreads)
struct SystemCallSeamCallerTests {
    static func keychain(_ sandbox: Sandbox) throws -> Keychain {
        Keychain(device: try KeychainDevice(root: sandbox.root), identity: sandbox.app)
    }

    @Test("the keychain makes its directory through the seam: traced, and a failed mkdir is a typed error naming it")
    func keychainDirectory() throws {
        let sandbox = try Sandbox()
        let directory = sandbox.root.appendingPathComponent("Keychains").standardizedFileURL.path
        let key = GenericPassword(service: "s", account: "a")
        let refused: FaultInjection.Plan = { call, path in call == .mkdir && path == directory ? .EACCES : nil }
        let error = FaultInjection.with(refused) {
            #expect(throws: KeychainError.self) { try Self.keychain(sandbox).save(Data("v".utf8), for: key) }
        }
        #expect("\(String(describing: error))".contains("mkdir(\(directory)) failed: Permission denied (EACCES"), "\(String(describing: error))")
        let (calls, _) = try FaultInjection.trace { try Self.keychain(sandbox).save(Data("v".utf8), for: key) }
        #expect(calls.contains { $0.call == .mkdir && $0.path == directory }, "\(calls)")
        #expect(try Self.keychain(sandbox).read(key) == Data("v".utf8))
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
