import AppGroupTesting
import Foundation
import Testing
@testable import AppGroupContainer
@testable import SharedDefaults
@testable import SharedKeychain
import ShareInbox
import AppGroupSystem
import TestSupport
import DeviceTestSupport

/// Write faults injected through `FaultInjection` (the hook inside every raw system
/// call). A plan applies to the task that installs it only, so these tests run in
/// parallel with each other and with every other suite; each plan also fails only
/// paths under the test's own sandbox.
@Suite("Write faults", .tags(.faults), .dedicatedThreads)
struct FaultTests {
    /// A step of a save, by the C functions that make it (which one depends on the
    /// path taken: pwrite for the inbox's sequence file, link to publish an item...).
    struct Step: Sendable {
        let name: String
        let calls: Set<FaultInjection.Call>
        static let write = Step(name: "write", calls: [.write, .pwrite])
        static let fsync = Step(name: "fsync", calls: [.fsync])
        static let rename = Step(name: "rename", calls: [.rename, .renameat, .link])
    }

    /// A plan failing `step` with `code` for paths under `prefix`; counts the faults.
    static func plan(_ step: Step, _ code: Errno, under prefix: String, count: Tally<Int>) -> FaultInjection.Plan {
        { call, path in
            guard step.calls.contains(call), path.hasPrefix(prefix) else { return nil }
            count.update { $0 += 1 }
            return code
        }
    }

    static let faults: [(Step, Errno)] = [
        (.write, .ENOSPC), (.write, .EIO), (.fsync, .ENOSPC), (.fsync, .EIO), (.rename, .ENOSPC), (.rename, .EIO),
    ]

    /// The operation under test, on content that already exists: `prepare` writes
    /// the previous content, `fail` attempts the change under the fault, `check`
    /// says whether the previous content is intact, and `temporaries` lists what
    /// a failed change might leave behind.
    struct Target: Sendable {
        let name: String
        let prepare: @Sendable (Sandbox) throws -> Void
        let fail: @Sendable (Sandbox) throws -> Void
        let intact: @Sendable (Sandbox) throws -> Bool
        let temporaries: @Sendable (Sandbox) throws -> [String]
        /// Whether `error` is the module's typed error carrying the injected errno.
        let typed: @Sendable (Error, Errno) -> Bool
    }

    static func preferencesTemporaries(_ sandbox: Sandbox) throws -> [String] {
        let directory = sandbox.root.appendingPathComponent(Sandbox.group + "/Library/Preferences")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(AtomicFile.isTemporaryName)
    }

    static func inbox(_ sandbox: Sandbox) throws -> ShareInbox {
        try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
    }

    static func inboxLeftovers(_ sandbox: Sandbox) throws -> [String] {
        let inbox = try inbox(sandbox)
        let staging = try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent("Staging").path)
        let items = try FileManager.default.contentsOfDirectory(atPath: inbox.itemsDirectory.path)
        return staging + (items.count == 1 ? [] : items)
    }

    static func appGroupErrno(_ error: Error, _ code: Errno) -> Bool {
        guard case .systemCall(_, _, let e)? = (error as? AppGroupError) ?? (error as? ShareInboxError)?.containerError else { return false }
        return e == code
    }

    static let targets: [Target] = [
        Target(name: "SharedDefaults.save",
               prepare: { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: $0.resolver()).save("before", forKey: "k") },
               fail: { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: $0.resolver()).save("after", forKey: "k") },
               intact: { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: $0.resolver(sandboxShare($0))).load(forKey: "k") as? String == "before" },
               temporaries: preferencesTemporaries,
               typed: { error, code in
                   guard case .fileSystem(_, .systemCall(_, _, let e))? = error as? SharedDefaultsError else { return false }
                   return e == code
               }),
        Target(name: "SharedDefaults.update",
               prepare: { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: $0.resolver()).save(41, forKey: "n") },
               fail: { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: $0.resolver()).update(Int.self, forKey: "n") { ($0 ?? 0) + 1 } },
               intact: { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: $0.resolver()).load(forKey: "n") as? Int == 41 },
               temporaries: preferencesTemporaries,
               typed: { error, code in
                   guard case .fileSystem(_, .systemCall(_, _, let e))? = error as? SharedDefaultsError else { return false }
                   return e == code
               }),
        Target(name: "AtomicFile.write",
               prepare: { try AtomicFile.write(Data("before".utf8), to: $0.root.appendingPathComponent("file"), below: .marked(above: $0.root.appendingPathComponent("file"))) },
               fail: { try AtomicFile.write(Data("after".utf8), to: $0.root.appendingPathComponent("file"), below: .marked(above: $0.root.appendingPathComponent("file"))) },
               intact: { try AtomicFile.read($0.root.appendingPathComponent("file"), below: .marked(above: $0.root.appendingPathComponent("file"))) == Data("before".utf8) },
               temporaries: { try FileManager.default.contentsOfDirectory(atPath: $0.root.path).filter(AtomicFile.isTemporaryName) },
               typed: appGroupErrno),
        Target(name: "ShareInbox.enqueue",
               prepare: { try inbox($0).enqueue(SharedItem(title: "before")) },
               fail: { try inbox($0).enqueue(SharedItem(title: "after")) },
               intact: { sandbox in
                   var titles: [String?] = []
                   try inbox(sandbox).drain { titles.append($0.title) }
                   return titles == ["before"]
               },
               temporaries: inboxLeftovers,
               typed: appGroupErrno),
        Target(name: "ShareInbox.enqueue with an attachment",
               prepare: { try inbox($0).enqueue(SharedItem(title: "before")) },
               fail: { sandbox in
                   let file = sandbox.scratch.appendingPathComponent("attachment.bin")
                   try Data(repeating: 7, count: 100_000).write(to: file)
                   try inbox(sandbox).enqueue(SharedItem(title: "after", attachments: [.init(fileURL: file)]))
               },
               intact: { sandbox in
                   var titles: [String?] = []
                   try inbox(sandbox).drain { titles.append($0.title) }
                   return titles == ["before"]
               },
               temporaries: inboxLeftovers,
               typed: appGroupErrno),
        Target(name: "Keychain.save",
               prepare: { try keychain($0).save(Data("before".utf8), for: GenericPassword(service: "s", account: "a")) },
               fail: { try keychain($0).save(Data("after".utf8), for: GenericPassword(service: "s", account: "a")) },
               intact: { try keychain($0).read(GenericPassword(service: "s", account: "a")) == Data("before".utf8) },
               temporaries: { sandbox in
                   let keychain = try keychain(sandbox)
                   let directory = keychain.device.directory(forAccessGroup: keychain.defaultAccessGroup)
                   return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(AtomicFile.isTemporaryName)
               },
               typed: { error, code in
                   guard let error = error as? KeychainError, case .storage(.systemCall(_, _, let e)) = error else { return false }
                   return e == code && error.status == -36
               }),
    ]

    static func sandboxShare(_ sandbox: Sandbox) -> Entitlements { sandbox.share }
    static func keychain(_ sandbox: Sandbox) throws -> Keychain {
        Keychain(device: try KeychainDevice(root: sandbox.root), identity: sandbox.app)
    }

    @Test("ENOSPC and EIO from write, fsync and rename: a typed error, the previous content intact, no temporary left")
    func writeFaults() throws {
        var injected = 0
        var outcomes: [String] = []
        for target in Self.targets {
            for (step, code) in Self.faults {
                // An item without attachments is appended to the journal: nothing is renamed.
                if target.name == "ShareInbox.enqueue" && step.name == "rename" { continue }
                let sandbox = try Sandbox()
                try target.prepare(sandbox)
                let count = Tally(0)
                let label = "\(target.name) under \(step.name) \(code.name ?? "")"
                FaultInjection.with(Self.plan(step, code, under: sandbox.base.path, count: count)) {
                    do {
                        try target.fail(sandbox)
                        Issue.record("\(label): no error")
                    } catch {
                        #expect(target.typed(error, code), "\(label): \(type(of: error)) \(error)")
                        let text = "\(error)"
                        #expect(text.contains(code == .ENOSPC ? "disk is full" : "I/O error"), "\(label): the message says what happened: \(text)")
                    }
                }
                #expect(count.current >= 1, "\(label): the fault was injected")
                injected += count.current
                #expect(try target.intact(sandbox), "\(label): the previous content is intact")
                let left = try target.temporaries(sandbox)
                #expect(left.isEmpty, "\(label): left behind \(left)")
                outcomes.append(label)
            }
        }
        report("write faults: \(outcomes.count) operations failed with ENOSPC/EIO from write, fsync or rename (\(injected) system calls failed); "
            + "each gave a typed error, kept the previous content and left no temporary file")
    }

    /// Whether `error` is (or wraps) notDurable.
    static func isNotDurable(_ error: Error) -> Bool {
        switch error {
        case AppGroupError.notDurable: return true
        case SharedDefaultsError.fileSystem(_, .notDurable): return true
        case ShareInboxError.container(.notDurable): return true
        case KeychainError.storage(.notDurable): return true
        default: return false
        }
    }

    @Test("the directory fsync after the rename fails: the error says the change happened, and it did (no silent double)")
    func directorySyncAfterRename() throws {
        let group = Sandbox.group
        let cases: [(String, (Sandbox) -> URL, (Sandbox) throws -> Void, (Sandbox) throws -> Bool)] = [
            ("SharedDefaults.update", { $0.root.appendingPathComponent(group + "/Library/Preferences") },
             { try SharedDefaults(requiringSuiteName: group, resolver: $0.resolver()).update(Int.self, forKey: "n") { ($0 ?? 0) + 1 } },
             { try SharedDefaults(requiringSuiteName: group, resolver: $0.resolver($0.share)).load(forKey: "n") as? Int == 1 }),
            ("AtomicFile.write", { $0.root },
             { try AtomicFile.write(Data("after".utf8), to: $0.root.appendingPathComponent("file"), below: .marked(above: $0.root.appendingPathComponent("file"))) },
             { try AtomicFile.read($0.root.appendingPathComponent("file"), below: .marked(above: $0.root.appendingPathComponent("file"))) == Data("after".utf8) }),
            // With an attachment: published by a rename into Items/ (one without is a
            // journal append, whose fdatasync failing is JournalTests' case).
            ("ShareInbox.enqueue", { $0.root.appendingPathComponent(group + "/Library/Application Support/Inbox/Items") },
             { sandbox in
                 let file = sandbox.scratch.appendingPathComponent("attachment.bin")
                 try Data(repeating: 7, count: 1000).write(to: file)
                 try Self.inbox(sandbox).enqueue(SharedItem(title: "after", attachments: [.init(fileURL: file)]))
             },
             { sandbox in
                 var titles: [String?] = []
                 try Self.inbox(sandbox).drain { titles.append($0.title) }
                 return titles == ["after"]
             }),
            ("Keychain.save", { sandbox in
                // The default group's directory: its file is what the save replaces.
                let group = sandbox.app.keychainAccessGroups.first ?? sandbox.app.applicationIdentifier
                return sandbox.root.appendingPathComponent(KeychainDevice.directoryName + "/" + KeychainDevice.accessGroupsDirectoryName
                                                           + "/" + KeychainDevice.accessGroupDirectoryName(group))
             },
             { try Self.keychain($0).save(Data("after".utf8), for: GenericPassword(service: "s", account: "a")) },
             { try Self.keychain($0).read(GenericPassword(service: "s", account: "a")) == Data("after".utf8) }),
        ]
        for (name, directory, change, changed) in cases {
            let sandbox = try Sandbox()
            let target = directory(sandbox).standardizedFileURL.path
            let count = Tally(0)
            let plan: FaultInjection.Plan = { call, path in
                guard call == .fsync, path == target else { return nil }
                count.update { $0 += 1 }
                return .EIO
            }
            FaultInjection.with(plan) {
                do {
                    try change(sandbox)
                    Issue.record("\(name): no error although the directory fsync failed")
                } catch {
                    #expect(Self.isNotDurable(error), "\(name): \(error)")
                    #expect("\(error)".contains("every process sees the change"), "\(name): \(error)")
                }
            }
            #expect(count.current == 1, "\(name): the fault was injected once")
            #expect(try changed(sandbox), "\(name): the change is in place, once")
        }
    }

    @Test("EINTR from the lock wait is retried: the operation completes")
    func interruptedLockWait() throws {
        let sandbox = try Sandbox()
        var interrupted = 0
        let operations: [(String, () throws -> Void)] = [
            ("FileCoordinator, blocking wait", {
                try FileCoordinator().coordinate(writingItemAt: sandbox.root.appendingPathComponent("a")) { url in
                    try AtomicFile.write(Data("a".utf8), to: url, below: .marked(above: url))
                }
            }),
            ("FileCoordinator, wait with a deadline", {
                try FileCoordinator(timeout: 5).coordinate(readingItemAt: sandbox.root.appendingPathComponent("a")) { _ in }
            }),
            ("SharedDefaults.save", {
                try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver()).save("v", forKey: "k")
            }),
            ("ShareInbox.enqueue", { try Self.inbox(sandbox).enqueue(SharedItem(title: "t")) }),
            ("Keychain.save", { try Self.keychain(sandbox).save(Data("v".utf8), for: GenericPassword(service: "s", account: "a")) }),
        ]
        for (name, operation) in operations {
            // EINTR on the first three lock attempts, then the real call.
            let count = Tally(0)
            let prefix = sandbox.base.path
            let plan: FaultInjection.Plan = { call, path in
                guard call == .lock, path.hasPrefix(prefix) else { return nil }
                return count.update { n -> Errno? in
                    n += 1
                    return n <= 3 ? .EINTR : nil
                }
            }
            FaultInjection.with(plan) {
                #expect(throws: Never.self, "\(name)") { try operation() }
            }
            #expect(count.current >= 4, "\(name): the lock was retried after EINTR (\(count.current) attempts)")
            interrupted += min(count.current, 3)
        }
        #expect(try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver()).load(forKey: "k") as? String == "v")
        #expect(try Self.inbox(sandbox).pendingCount() == 1)
        report("EINTR: \(interrupted) interrupted lock waits in \(operations.count) operations, all retried and completed")
    }
}
