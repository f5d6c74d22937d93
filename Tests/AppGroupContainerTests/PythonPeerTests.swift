import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The locking protocol (LockingProtocol.md), followed by a process in another language: Python
/// with `fcntl.lockf` (classic POSIX record locks, which conflict with the OFD
/// locks this package takes) races the Swift probes on one counter.
extension MultiProcess {
    @Suite(.tags(.multiprocess, .python)) struct PythonPeer {
        /// The protocol's Python, taken from the article itself (every ```python
        /// block of LockingProtocol.md: `lock_path`, `fitted`, `lock`), so the
        /// specification cannot drift from what the tests run; then a driver:
        /// lock, check the path still names the locked file (step 5), read, write a
        /// temporary, fsync, rename, fsync the directory, unlock.
        static var peer: String {
            get throws { try LockingProtocolArticle.python() + driver }
        }

        static let driver = #"""

        import sys
        path, count = normalized(os.fsencode(sys.argv[1])), int(sys.argv[2])
        directory = os.path.dirname(path)
        if count == -1:
            print(os.fsdecode(lock_path(path)), flush=True)
            sys.exit(0)
        if count == -2:                        # would this be used as a coordination tree?
            try:
                open_tree(path)
                print("used", flush=True)
            except OSError as error:
                print("refused: %s" % error, flush=True)
            sys.exit(0)
        until = os.fsencode(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "until" else None
        i = 0
        while i < count or (until is not None and not os.path.exists(until)):
            i += 1
            if i == 1 and until is not None:
                print("started", flush=True)
            fd = lock(path, fcntl.LOCK_EX)
            try:
                try:
                    with open(path, "rb") as f:
                        value = int(f.read() or b"0")
                except FileNotFoundError:
                    value = 0
                temporary = os.path.join(directory, temporary_name(os.path.basename(path)))
                out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                os.write(out, str(value + 1).encode())
                os.fsync(out)
                os.close(out)
                os.replace(temporary, path)
                dfd = os.open(directory, os.O_RDONLY)
                os.fsync(dfd)
                os.close(dfd)
            finally:
                fcntl.lockf(fd, fcntl.LOCK_UN)
                os.close(fd)
        if until is not None:
            print("done %d" % i, flush=True)
        if len(sys.argv) > 3 and sys.argv[3] == "hold":
            fd = lock(path, fcntl.LOCK_EX)
            print("locked", flush=True)
            sys.stdin.read()
        """#

        static func python() throws -> URL {
            if let python = Python.executable { return python }
            // .ci/run makes sure python3 is installed; a missing one is a failure, not a skip.
            throw AppGroupError.unsafePath(path: "python3", problem: "not found in " + Python.candidates.joined(separator: " or "))
        }

        @Test("2 Swift processes and 2 Python processes (fcntl.lockf) x 250 increments end at exactly 1000")
        func swiftAndPythonShareTheLock() throws {
            try withTemporaryDirectory { dir in
                let script = dir.appendingPathComponent("peer.py")
                try Data(try Self.peer.utf8).write(to: script)
                let file = dir.appendingPathComponent("counter")
                let python = try Self.python()
                let peers = try (0..<2).map { _ in
                    try LaunchedProcess(executable: python, arguments: [script.path, file.path, "250"], environment: ProcessInfo.processInfo.environment)
                }
                try withProbes { probes in
                    let swift = try (0..<2).map { _ in try Probe.start(["increment", "--file", file.path, "--count", "250"]) }
                    probes += swift
                    for probe in swift { #expect(probe.wait(timeout: 60).status == 0, "stderr: \(probe.standardError)") }
                }
                for peer in peers {
                    #expect(peer.wait(timeout: 120).status == 0)
                }
                #expect(counter(file) == 1000)
            }
        }

        /// A peer derives the same shortened lock name from the specification's rule.
        @Test("Python derives the same lock file as Swift for a 255-byte name, and both exclude each other on it")
        func pythonAgreesOnLongLockNames() throws {
            try withTemporaryDirectory { dir in
                let script = dir.appendingPathComponent("peer.py")
                try Data(try Self.peer.utf8).write(to: script)
                let file = dir.appendingPathComponent(String(repeating: "\u{E9}", count: 100) + String(repeating: "n", count: 49) + ".plist")
                try #require(file.lastPathComponent.utf8.count == 255)
                let python = try Self.python()
                let printed = try LaunchedProcess.run(python, [script.path, file.path, "-1"]).standardOutput
                let swift = try FileCoordinator.lockFileURL(for: file).path
                #expect(printed.trimmingCharacters(in: .newlines).utf8.elementsEqual(swift.utf8), "python: \(printed) swift: \(swift)")
                #expect(URL(fileURLWithPath: swift).lastPathComponent.utf8.count <= 255)
                let peer = try LaunchedProcess(executable: python, arguments: [script.path, file.path, "200"], environment: ProcessInfo.processInfo.environment)
                try withProbes { probes in
                    let probe = try Probe.start(["increment", "--file", file.path, "--count", "200"])
                    probes.append(probe)
                    #expect(probe.wait(timeout: 60).status == 0, "stderr: \(probe.standardError)")
                }
                #expect(peer.wait(timeout: 120).status == 0)
                #expect(counter(file) == 400)
            }
        }

        @Test("a Python writer running while a nearer coordination tree is made keeps excluding the Swift writers started after: no increment lost")
        func pythonFollowsANearerTree() throws {
            try SimulatedDevice.with { device in
                let script = device.scratch.appendingPathComponent("peer.py")
                try Data(try Self.peer.utf8).write(to: script)
                let base = device.root.appendingPathComponent("group.ai.systenics.notes/Library/Caches/inner", isDirectory: true)
                let directory = base.appendingPathComponent("group.ai.systenics.notes/Library/Preferences", isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let file = directory.appendingPathComponent("counter")
                let stop = device.scratch.appendingPathComponent("stop")
                let python = try Self.python()
                let peer = try LaunchedProcess(executable: python, arguments: [script.path, file.path, "0", "until", stop.path],
                                               environment: ProcessInfo.processInfo.environment)
                defer { _ = FileManager.default.createFile(atPath: stop.path, contents: Data()); _ = peer.wait(timeout: 30) }
                try #require(peer.waitForLine("started", timeout: 60), "stderr: \(peer.standardError)")
                // Made under the item's lock where Python takes it: no increment in flight.
                try FileCoordinator().coordinate(writingItemAt: file) { _ in
                    try FileManager.default.createDirectory(at: base.appendingPathComponent(".coordination"), withIntermediateDirectories: false,
                                                            attributes: [.posixPermissions: 0o700])
                }
                #expect(try FileCoordinator.lockFileURL(for: file).path.hasPrefix(base.path + "/.coordination/"))
                try withProbes { probes in
                    let swift = try (0..<2).map { _ in try Probe.start(["increment", "--file", file.path, "--count", "300"]) }
                    probes += swift
                    for probe in swift { #expect(probe.wait(timeout: 120).status == 0, "stderr: \(probe.standardError)") }
                }
                #expect(FileManager.default.createFile(atPath: stop.path, contents: Data()))
                let end = peer.wait(timeout: 120)
                #expect(end.status == 0, "\(end)")
                let done = end.outputLines.last.flatMap { $0.hasPrefix("done ") ? Int($0.dropFirst(5)) : nil }
                let total = try #require(done, "python did not say how many it did: \(end)")
                #expect(counter(file) == total + 600, "python made \(total) increments, Swift 600")
            }
        }

        @Test("the article's Python refuses a coordination tree that is a link, another's mode or a file; uses its own 0700 directory",
              .tags(.hostile))
        func pythonChecksTheTree() throws {
            try withTemporaryDirectory { dir in
                let script = dir.appendingPathComponent("peer.py")
                try Data(try Self.peer.utf8).write(to: script)
                let python = try Self.python()
                let own = dir.appendingPathComponent("own"), open = dir.appendingPathComponent("open")
                let link = dir.appendingPathComponent("link"), file = dir.appendingPathComponent("file")
                try FileManager.default.createDirectory(at: own, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
                try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path) // chmod: no umask
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: own)
                #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
                func answer(_ tree: URL) throws -> String {
                    try LaunchedProcess.run(python, [script.path, tree.path, "-2"]).standardOutput.trimmingCharacters(in: .newlines)
                }
                #expect(try answer(own) == "used")
                for refused in [open, link, file] {
                    let said = try answer(refused)
                    #expect(said.hasPrefix("refused"), "\(refused.lastPathComponent): \(said)")
                }
            }
        }

        @Test("a lock held by a Python process makes a Swift writer with a 100 ms timeout fail")
        func pythonHolderExcludesSwift() throws {
            try withTemporaryDirectory { dir in
                let script = dir.appendingPathComponent("peer.py")
                try Data(try Self.peer.utf8).write(to: script)
                let file = dir.appendingPathComponent("item")
                let holder = Process()
                holder.executableURL = try Self.python()
                holder.arguments = [script.path, file.path, "0", "hold"]
                let output = Pipe()
                let input = Pipe()
                holder.standardOutput = output
                holder.standardInput = input
                try holder.run()
                defer {
                    try? input.fileHandleForWriting.close()
                    holder.waitUntilExit()
                }
                let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
                try #require(line.hasPrefix("locked"))
                let error = #expect(throws: AppGroupError.self) {
                    try FileCoordinator(timeout: 0.1).coordinate(writingItemAt: file) { _ in }
                }
                guard case .coordinationTimedOut? = error else { Issue.record("got \(String(describing: error))"); return }
            }
        }
    }
}
