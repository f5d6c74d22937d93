import AppGroupContainer
import Foundation
import Testing

/// README's locking protocol, followed by a process in another language: Python
/// with `fcntl.lockf` (classic POSIX record locks, which conflict with the OFD
/// locks this package takes) races the Swift probes on one counter.
extension MultiProcess {
    @Suite struct PythonPeer {
        /// The protocol, written from README alone: lock `.<name>.lock` (whole file),
        /// check it is still linked, read, write a temporary, fsync, rename, fsync the
        /// directory, unlock.
        static let peer = #"""
        import fcntl, os, sys
        path, count = sys.argv[1], int(sys.argv[2])
        directory, name = os.path.split(path)
        lock_path = os.path.join(directory, "." + name + ".lock")
        for i in range(count):
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            fcntl.lockf(fd, fcntl.LOCK_EX)
            assert os.fstat(fd).st_nlink > 0
            try:
                try:
                    with open(path, "rb") as f:
                        value = int(f.read() or b"0")
                except FileNotFoundError:
                    value = 0
                temporary = os.path.join(directory, ".%s.tmp-py%d-%d" % (name, os.getpid(), i))
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
        if len(sys.argv) > 3 and sys.argv[3] == "hold":
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            fcntl.lockf(fd, fcntl.LOCK_EX)
            print("locked", flush=True)
            sys.stdin.read()
        """#

        static func python() throws -> URL {
            for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] where FileManager.default.isExecutableFile(atPath: candidate) {
                return URL(fileURLWithPath: candidate)
            }
            // .ci/run makes sure python3 is installed; a missing one is a failure, not a skip.
            throw AppGroupError.unsafePath(path: "python3", problem: "not found in /usr/bin or /usr/local/bin")
        }

        @Test("2 Swift processes and 2 Python processes (fcntl.lockf) x 250 increments end at exactly 1000")
        func swiftAndPythonShareTheLock() throws {
            try withTemporaryDirectory { dir in
                let script = dir.appendingPathComponent("peer.py")
                try Data(Self.peer.utf8).write(to: script)
                let file = dir.appendingPathComponent("counter")
                let python = try Self.python()
                var peers: [Process] = []
                for _ in 0..<2 {
                    let process = Process()
                    process.executableURL = python
                    process.arguments = [script.path, file.path, "250"]
                    try process.run()
                    peers.append(process)
                }
                try withProbes { probes in
                    let swift = try (0..<2).map { _ in try Probe(["increment", "--file", file.path, "--count", "250"]) }
                    probes += swift
                    for probe in swift { #expect(probe.waitForExit(timeout: 60) == 0, "stderr: \(probe.errorOutput)") }
                }
                for peer in peers {
                    peer.waitUntilExit()
                    #expect(peer.terminationStatus == 0)
                }
                #expect(counter(file) == 1000)
            }
        }

        @Test("a lock held by a Python process makes a Swift writer with a 100 ms timeout fail")
        func pythonHolderExcludesSwift() throws {
            try withTemporaryDirectory { dir in
                let script = dir.appendingPathComponent("peer.py")
                try Data(Self.peer.utf8).write(to: script)
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
