import AppGroupContainer
import AppGroupFoundation
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The coordinator's lock and signal files
/// live in a tree of the package's own (the device root's `.coordination`, or the
/// user's private tree), never beside the items; whatever is planted at their
/// paths (a FIFO, a hard link, another user's file) never hangs a coordination,
/// never gets written, and is never believed.
extension MultiProcess {
    @Suite("Coordination trees", .tags(.multiprocess, .hostile))
    struct CoordinationTrees {
        static let group = "group.ai.systenics.trees"

        /// A device with one container, resolved by this process (so its root is registered).
        static func container(_ device: SimulatedDevice) throws -> URL {
            let identity = try Entitlements(applicationIdentifier: "A1B2C3D4E5.ai.systenics.trees", applicationGroups: [group])
            return try ContainerResolver(root: device.root, entitlements: identity).requireContainerURL(forSecurityApplicationGroupIdentifier: group)
        }

        static func every(_ directory: URL) -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []).sorted()
        }

        @Test("a folder used as a queue holds only its items: coordinated writes, reads, moves, deletions and presenters of this process and another leave nothing beside them")
        func aQueueFolderListsOnlyItsItems() throws {
            try SimulatedDevice.with { device in
                let queue = try Self.container(device).appendingPathComponent("Library/Caches/Queue", isDirectory: true)
                try FileManager.default.createDirectory(at: queue, withIntermediateDirectories: false)
                let presenter = RecordingPresenter(queue)
                try presenting(presenter) {
                    let coordinator = NSFileCoordinator(filePresenter: nil)
                    for name in ["1.json", "2.json", "3.json"] {
                        var error: NSError?
                        coordinator.coordinate(writingItemAt: queue.appendingPathComponent(name), options: [], error: &error) { url in
                            try? Data("{}".utf8).write(to: url)
                        }
                        #expect(error == nil)
                    }
                    try FileCoordinator().coordinate(readingItemAt: queue.appendingPathComponent("1.json")) { _ in }
                    try Probe.run(["ns-write", "--file", queue.appendingPathComponent("4.json").path, "--text", "{}"])
                    var error: NSError?
                    let from = queue.appendingPathComponent("2.json"), to = queue.appendingPathComponent("moved.json")
                    coordinator.coordinate(writingItemAt: from, options: .forMoving, writingItemAt: to, options: .forReplacing, error: &error) { a, b in
                        try? FileManager.default.moveItem(at: a, to: b)
                        coordinator.item(at: a, didMoveTo: b)
                    }
                    let deleted = queue.appendingPathComponent("3.json")
                    let deletedLock = try FileCoordinator.lockFileURL(for: deleted)
                    #expect(FileManager.default.fileExists(atPath: deletedLock.path))
                    coordinator.coordinate(writingItemAt: deleted, options: .forDeleting, error: &error) { url in
                        try? FileManager.default.removeItem(at: url)
                    }
                    #expect(!FileManager.default.fileExists(atPath: deletedLock.path), "a deleted item's lock file stays in the tree")
                    #expect(presenter.wait(seconds: 20) { $0.contains { $0.hasPrefix("subitemDidChange") && $0.hasSuffix("4.json") } }, "\(presenter.events)")
                }
                // What code that lists without .skipsHiddenFiles sees: its own files only.
                #expect(try FileManager.default.contentsOfDirectory(atPath: queue.path).sorted() == ["1.json", "4.json", "moved.json"])
                let container = queue.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                let strays = Self.every(container).filter { $0.hasSuffix(".lock") || $0.hasSuffix(".changes") }
                #expect(strays.isEmpty, "lock or signal files in the container: \(strays)")
                // They are in the device root's tree, 0700, files 0600.
                let tree = device.root.appendingPathComponent(".coordination")
                #expect(permissions(tree.path) == 0o700)
                let files = Self.every(tree)
                #expect(files.contains(try FileCoordinator.lockFileURL(for: queue.appendingPathComponent("1.json")).lastPathComponent))
                // (Directories too, 0700: the presenters' registries and inboxes, Signals/README.md.)
                #expect(files.allSatisfy { name in
                    var isDirectory: ObjCBool = false
                    let path = tree.appendingPathComponent(name).path
                    _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                    return permissions(path) == (isDirectory.boolValue ? 0o700 : 0o600)
                }, "\(files.map { ($0, String(permissions(tree.appendingPathComponent($0).path) ?? 0, radix: 8)) })")
            }
        }

        @Test("a process that knows only the path finds the same lock file as the one that resolved the root, and they exclude each other")
        func aPathAloneFindsTheSameLockFile() throws {
            try SimulatedDevice.with { device in
                let item = try Self.container(device).appendingPathComponent("Library/Preferences/counter")
                let here = try FileCoordinator.lockFileURL(for: item).path
                #expect(here.hasPrefix(device.root.path + "/.coordination/"))
                // No APP_GROUP_* variable: the probe never resolves a container of this root.
                let there = try Probe.run(["lock-path", "--file", item.path]).outputLines
                #expect(there == [here])
                try withProbes { probes in
                    let holder = try Probe.start(["hold", "--file", item.path])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")
                    let error = #expect(throws: AppGroupError.self) {
                        try FileCoordinator(timeout: 0.1).coordinate(writingItemAt: item) { _ in Issue.record("ran beside the holder") }
                    }
                    #expect(error == .coordinationTimedOut(path: item.path, lockFile: here, seconds: 0.1))
                }
                // Outside every device root (the device's scratch has a tree of its own,
                // so a path in the system's temporary directory): the user's private tree.
                try withTemporaryDirectory { dir in
                    let outside = dir.appendingPathComponent("item")
                    let privately = try FileCoordinator.lockFileURL(for: outside).path
                    #expect(!privately.hasPrefix(dir.path))
                    #expect(try Probe.run(["lock-path", "--file", outside.path]).outputLines == [privately])
                }
            }
        }

        @Test("a lock file of package 0.1.x beside an item is refused in every process, naming the file, and nothing is written")
        func aVersionOneLockFileIsRefused() throws {
            try SimulatedDevice.with { device in
                let item = try Self.container(device).appendingPathComponent("Library/Preferences/counter")
                let old = item.deletingLastPathComponent().appendingPathComponent(".counter.lock")
                #expect(FileManager.default.createFile(atPath: old.path, contents: nil))
                let error = #expect(throws: AppGroupError.self) { try FileCoordinator().coordinate(writingItemAt: item) { _ in } }
                #expect(error == .olderLockingProtocol(path: item.path, lockFile: old.path))
                let probe = try Probe.start(["increment", "--file", item.path, "--count", "1"])
                let end = probe.wait(timeout: 30)
                #expect(end.status != 0 && end.standardError.contains(old.path) && end.standardError.contains("0.1.x"), "\(end)")
                #expect(!FileManager.default.fileExists(atPath: item.path))
                // Once the old file is gone (every process updated), the item coordinates.
                try FileManager.default.removeItem(at: old)
                try Probe.run(["increment", "--file", item.path, "--count", "1"])
                #expect(counter(item) == 1)
            }
        }

        @Test("a FIFO at a signal path (the item's, a directory's, or the 0.1.x place in /tmp, planted by another user) never hangs a coordinated write or a presenter's registration")
        func aFIFOAtASignalPathNeverHangs() throws {
            try SimulatedDevice.with { device in
                let folder = try Self.container(device).appendingPathComponent("Library/Caches/Shared", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                let item = folder.appendingPathComponent("note.txt")
                // The directory's signal file is a FIFO: a write below it must skip it.
                let folderSignal = try #require(try FileCoordinator.changeSignalURL(for: folder))
                #expect(mkfifo(folderSignal.path, 0o600) == 0)
                let write = try Probe.start(["ns-write", "--file", item.path, "--text", "hello"])
                let end = write.wait(timeout: 30)
                #expect(end.succeeded && !end.timedOut, "a coordinated write hung on a FIFO: \(end)")
                // The item's own signal file is a FIFO: registering its presenter replaces it.
                let itemSignal = try #require(try FileCoordinator.changeSignalURL(for: item))
                #expect(mkfifo(itemSignal.path, 0o600) == 0)
                let presenter = RecordingPresenter(item)
                let registered = DispatchSemaphore(value: 0)
                Thread {
                    NSFileCoordinator.addFilePresenter(presenter)
                    registered.signal()
                }.start()
                #expect(registered.wait(timeout: .now() + 20) == .success, "addFilePresenter hung on a FIFO")
                defer { NSFileCoordinator.removeFilePresenter(presenter) }
                try Probe.run(["ns-write", "--file", item.path, "--text", "again"])
                #expect(presenter.wait(seconds: 20) { $0.contains("didChange") }, "the presenter never heard: \(presenter.events)")
                // A FIFO where the lock file belongs: a typed error, at once.
                let lock = try FileCoordinator.lockFileURL(for: folder.appendingPathComponent("other"))
                #expect(mkfifo(lock.path, 0o600) == 0)
                let error = #expect(throws: AppGroupError.self) {
                    try FileCoordinator(timeout: 1).coordinate(writingItemAt: folder.appendingPathComponent("other")) { _ in }
                }
                guard case .notARegularFile? = error else { Issue.record("got \(String(describing: error))"); return }
            }
        }

        @Test("a FIFO another user planted at the 0.1.x signal place in /tmp never hangs a coordinated write",
              .enabled(if: Privileges.canActAsAnotherUser, "acting as uid 65534 needs root and setpriv (CI runs as root)"))
        func anotherUsersFIFOInTmpNeverHangs() throws {
            try Self.asAnotherUser { user in
                // 0.1.x kept a directory's signal file beside it, in its parent: in /tmp,
                // where anyone can plant one. This release never opens it.
                try withTemporaryDirectory { dir in
                    let planted = dir.deletingLastPathComponent().appendingPathComponent("." + dir.lastPathComponent + ".changes")
                    #expect(try user(["/usr/bin/mkfifo", planted.path]).status == 0)
                    defer { try? FileManager.default.removeItem(at: planted) }
                    let presenter = RecordingPresenter(dir)
                    try presenting(presenter) {
                        let write = try Probe.start(["ns-write", "--file", dir.appendingPathComponent("x").path, "--text", "x"])
                        let end = write.wait(timeout: 30)
                        #expect(end.succeeded && !end.timedOut, "a write hung on another user's FIFO in /tmp: \(end)")
                        #expect(presenter.wait(seconds: 20) { $0.contains { $0.hasPrefix("subitemDidChange") } }, "\(presenter.events)")
                    }
                }
            }
        }

        @Test("a signal file of another user is never written and its records never believed; nor is the 0.1.x one in /tmp",
              .enabled(if: Privileges.canActAsAnotherUser, "acting as uid 65534 needs root and setpriv (CI runs as root)"))
        func anotherUsersSignalFileIsIgnored() throws {
            try Self.asAnotherUser { user in
                try SimulatedDevice.with { device in
                    let item = try Self.container(device).appendingPathComponent("Library/Caches/private.txt")
                    let presenter = RecordingPresenter(item)
                    try presenting(presenter) {
                        let signal = try #require(try FileCoordinator.changeSignalURL(for: item))
                        // Replaced by a file of uid 65534 holding a crafted move record.
                        let crafted = "f00d 1 0 move \(item.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!) %2Fetc%2Fpasswd\n"
                        // Made another user's before it takes the signal file's place.
                        let staged = signal.deletingLastPathComponent().appendingPathComponent("staged")
                        try Data(crafted.utf8).write(to: staged)
                        #expect(chown(staged.path, 65534, 65534) == 0)
                        #expect(rename(staged.path, signal.path) == 0)
                        try Probe.run(["ns-write", "--file", item.path, "--text", "secret path"])
                        usleep(300_000)
                        #expect(try String(contentsOf: signal, encoding: .utf8) == crafted, "a record went into another user's file")
                        #expect(!presenter.events.contains { $0.hasPrefix("didMove") }, "a crafted move was believed: \(presenter.events)")
                    }
                }
                // The 0.1.x place: another user's `.<dir>.changes` in /tmp, beside our 0700 directory.
                try withTemporaryDirectory { dir in
                    let planted = dir.deletingLastPathComponent().appendingPathComponent("." + dir.lastPathComponent + ".changes")
                    #expect(try user(["/usr/bin/touch", planted.path]).status == 0)
                    defer { try? FileManager.default.removeItem(at: planted) }
                    let presenter = RecordingPresenter(dir)
                    try presenting(presenter) {
                        try Probe.run(["ns-write", "--file", dir.appendingPathComponent("secret-name").path, "--text", "x"])
                        #expect(presenter.wait(seconds: 20) { !$0.isEmpty })
                    }
                    #expect(try Data(contentsOf: planted).isEmpty, "a private path went into another user's file")
                }
            }
        }

        @Test("a hard link planted at a signal path: a coordinated write leaves the link's target unchanged")
        func aHardLinkedSignalFileIsNotWritten() throws {
            try SimulatedDevice.with { device in
                let item = try Self.container(device).appendingPathComponent("Library/Caches/data.json")
                let victim = device.root.appendingPathComponent("victim.txt") // same file system as the tree
                try Data("precious".utf8).write(to: victim)
                let presenter = RecordingPresenter(item)
                try presenting(presenter) {
                    let signal = try #require(try FileCoordinator.changeSignalURL(for: item))
                    try FileManager.default.removeItem(at: signal)
                    #expect(link(victim.path, signal.path) == 0)
                    let write = try Probe.run(["ns-write", "--file", item.path, "--text", "{}"])
                    #expect(write.standardError.contains("hard links"), "stderr: \(write.standardError)")
                }
                #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
            }
        }

        @Test("the private tree: a directory another user made at its place is refused, never used; the user's own is 0700",
              .enabled(if: Privileges.canActAsAnotherUser, "acting as uid 65534 needs root and setpriv (CI runs as root)"))
        func anotherUsersPrivateTreeIsRefused() throws {
            try Self.asAnotherUser { user in
                // uid 65534 has no home (/nonexistent): its tree is /tmp/AppGroupCoordination-65534.
                let squatted = URL(fileURLWithPath: "/tmp/AppGroupCoordination-65534")
                try? FileManager.default.removeItem(at: squatted)
                defer { try? FileManager.default.removeItem(at: squatted) }
                try FileManager.default.createDirectory(at: squatted, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
                try withTemporaryDirectory { dir in
                    #expect(chmod(dir.path, 0o755) == 0)
                    let probe = try Probe.executable().path
                    let refused = try user([probe, "wait-lock", "--file", dir.appendingPathComponent("item").path, "--timeout", "5"])
                    #expect(refused.status != 0 && !refused.timedOut && refused.standardError.contains(squatted.path)
                            && refused.standardError.contains("uid 0"), "\(refused)")
                    try FileManager.default.removeItem(at: squatted)
                    let own = try user([probe, "wait-lock", "--file", dir.appendingPathComponent("item").path, "--timeout", "5"])
                    #expect(own.succeeded, "\(own)")
                    var st = stat()
                    #expect(lstat(squatted.path, &st) == 0 && st.st_uid == 65534 && st.st_mode & 0o777 == 0o700)
                }
            }
        }

        @Test("the private tree is swept: lock files of items whose directory is gone go, unless held; others stay")
        func thePrivateTreeIsSwept() throws {
            try withTemporaryDirectory { dir in
                // A stand-in tree laid out as the private one (the real one is shared
                // with every test of this user).
                let tree = dir.appendingPathComponent("tree")
                try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                let alive = dir.appendingPathComponent("alive")
                try FileManager.default.createDirectory(at: alive, withIntermediateDirectories: false)
                func plant(_ name: String, key: String) throws {
                    try Data((key + "\n").utf8).write(to: tree.appendingPathComponent(name))
                }
                for i in 0..<20 { try plant("gone\(i).lock", key: dir.path + "/removed/item\(i)") }
                for i in 0..<5 { try plant("alive\(i).lock", key: alive.path + "/item\(i)") }
                try plant("held.lock", key: dir.path + "/removed/held")
                try plant("junk.lock", key: "not a path")
                try withProbes { probes in
                    // Another process holds one whose directory is gone: it must stay.
                    // (fcntl.lockf, as the protocol's peers lock: flock(1) would not conflict.)
                    let hold = "import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.lockf(fd, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)"
                    let holder = try LaunchedProcess(executable: try PythonPeer.python(),
                                                     arguments: ["-c", hold, tree.appendingPathComponent("held.lock").path],
                                                     environment: ProcessInfo.processInfo.environment)
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"))
                    #expect(try PrivateTreeSweep.sweep(directoryAt: tree.path, threshold: 100) == 0, "a small tree is left alone")
                    #expect(try PrivateTreeSweep.sweep(directoryAt: tree.path, threshold: 10) == 20)
                }
                #expect(names(in: tree) == ["alive0.lock", "alive1.lock", "alive2.lock", "alive3.lock", "alive4.lock", "held.lock", "junk.lock"])
            }
        }

        @Test("a process that coordinates 3,000 distinct items keeps at most 64 idle lock descriptors open, not one per item")
        func idleLockDescriptorsAreBounded() throws {
            try SimulatedDevice.with { device in
                let folder = try Self.container(device).appendingPathComponent("Library/Caches")
                let few = try Probe.run(["many-items", "--dir", folder.path, "--count", "10"]).outputLines
                let many = try Probe.run(["many-items", "--dir", folder.path, "--count", "3000"]).outputLines
                let open = { (lines: [String]) in lines.first.flatMap { Int($0.dropFirst("open ".count)) } ?? -1 }
                #expect(open(few) > 0 && open(many) > 0)
                #expect(open(many) - open(few) <= 64, "10 items: \(open(few)) descriptors, 3,000 items: \(open(many))")
            }
        }

        /// Runs `body` with a way to run commands as uid 65534 (the tests calling it
        /// are enabled only where that is possible).
        static func asAnotherUser(_ body: (_ run: ([String]) throws -> ProcessOutcome) throws -> Void) throws {
            let setpriv = try #require(Privileges.setpriv, "setpriv")
            try body { arguments in
                try LaunchedProcess.run(URL(fileURLWithPath: setpriv), ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments, timeout: 60)
            }
        }
    }
}
