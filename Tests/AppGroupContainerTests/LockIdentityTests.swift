import AppGroupContainer
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

extension MultiProcess {
    /// Which file a lock guards: step 5 of the locking protocol (the path still
    /// names the locked inode) and paths compared by their bytes.
    @Suite("Lock identity", .tags(.multiprocess))
    struct LockIdentity {
        /// Two processes x 1,500 increments while a third
        /// keeps replacing the directory holding the lock file with a copy (under
        /// the lock, keeping the old directory, so the old lock file stays linked).
        /// A waiter that woke on the old lock file must notice and lock again.
        @Test("a directory replaced by a copy while writers wait loses no increment")
        func directorySwappedUnderWaiters() async throws {
            let run = try await offPool { try Self.swapUnderWaiters() }
            #expect(run.writers == [0, 0], "stderr: \(run.errors)")
            #expect(run.swapper == 0, "stderr: \(run.errors)")
            #expect(run.counter == 3000, "every acknowledged increment is in the counter")
            let swaps = run.swaps.split(separator: " ").last.map(String.init) ?? "?"
            print("[reliability] lock file's directory replaced by a copy \(swaps) times while 2 processes x 1500 increments ran; counter \(run.counter.map(String.init) ?? "missing") of 3000")
        }

        struct SwapRun: Sendable {
            var writers: [Int32?] = []
            var swapper: Int32?
            var swaps = ""
            var counter: Int?
            var errors = ""
        }

        /// Blocking (seconds of child processes): run off the cooperative pool, and
        /// without #expect, which belongs to the test's task.
        static func swapUnderWaiters() throws -> SwapRun {
            var run = SwapRun()
            try withTemporaryDirectory { dir in
                let work = dir.appendingPathComponent("work", isDirectory: true)
                let attic = dir.appendingPathComponent("attic", isDirectory: true)
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: false)
                try FileManager.default.createDirectory(at: attic, withIntermediateDirectories: false)
                let file = work.appendingPathComponent("counter")
                let stop = dir.appendingPathComponent("stop")
                try withProbes { probes in
                    let swapper = try Probe.start(["swap-dir", "--file", file.path, "--until", stop.path, "--attic", attic.path])
                    probes.append(swapper)
                    let writers = try (0..<2).map { _ in try Probe.start(["increment", "--file", file.path, "--count", "1500"]) }
                    probes += writers
                    for writer in writers {
                        run.writers.append(writer.wait(timeout: 120).status)
                        run.errors += writer.standardError
                    }
                    _ = FileManager.default.createFile(atPath: stop.path, contents: Data())
                    run.swapper = swapper.wait(timeout: 30).status
                    run.errors += swapper.standardError
                    run.swaps = swapper.outputLines.last ?? ""
                }
                run.counter = counter(file)
            }
            return run
        }

        static let composed = "caf\u{E9}"
        static let decomposed = "cafe\u{301}"

        /// Normalization twins in the coordinator: the two spellings are equal Strings
        /// but two files, with two lock files.
        @Test("an NFD path inside a coordination of its NFC twin takes its own lock")
        func normalizationTwinsNestInOneThread() throws {
            try withTemporaryDirectory { dir in
                let nfc = dir.appendingPathComponent(Self.composed)
                let nfd = dir.appendingPathComponent(Self.decomposed)
                try #require(!nfc.path.utf8.elementsEqual(nfd.path.utf8))
                try withProbes { probes in
                    // Another process holds the NFD twin's lock.
                    let holder = try Probe.start(["hold", "--file", nfd.path])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")
                    let nfdLock = try FileCoordinator.lockFileURL(for: nfd).path
                    let coordinator = FileCoordinator(timeout: 0.3)
                    _ = try coordinator.coordinate(writingItemAt: nfc) { _ in
                        // Not re-entrant: it must wait for the holder, and time out.
                        #expect {
                            try coordinator.coordinate(writingItemAt: nfd) { _ in }
                        } throws: { error in
                            guard case let .coordinationTimedOut(_, lockFile, _)? = error as? AppGroupError else { return false }
                            return lockFile.utf8.elementsEqual(nfdLock.utf8)
                        }
                    }
                    #expect(!(try FileCoordinator.lockFileURL(for: nfc).path.utf8.elementsEqual(nfdLock.utf8)))
                }
            }
        }

        @Test("two processes on the two spellings do not exclude each other; each spelling excludes itself")
        func normalizationTwinsAcrossProcesses() throws {
            try withTemporaryDirectory { dir in
                let nfc = dir.appendingPathComponent(Self.composed)
                let nfd = dir.appendingPathComponent(Self.decomposed)
                try withProbes { probes in
                    let holder = try Probe.start(["hold", "--file", nfc.path])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")
                    let other = try Probe.start(["wait-lock", "--file", nfd.path, "--timeout", "10"])
                    probes.append(other)
                    #expect(other.wait(timeout: 30).status == 0, "the NFD twin waited for the NFC lock: \(other.standardOutput) \(other.standardError)")
                    let same = try Probe.start(["wait-lock", "--file", nfc.path, "--timeout", "0.3"])
                    probes.append(same)
                    #expect(same.wait(timeout: 30).status == 3, "the NFC path must wait for its own holder: \(same.standardOutput)")
                }
                let lockFiles = Set([try FileCoordinator.lockFileURL(for: nfc).path, try FileCoordinator.lockFileURL(for: nfd).path])
                #expect(lockFiles.count == 2, "two lock files: \(lockFiles)")
            }
        }
    }
}
