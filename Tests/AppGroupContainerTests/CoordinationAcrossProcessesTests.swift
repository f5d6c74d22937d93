import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// Reads a counter file written by the probes ("123"); nil when missing or not a number.
func counter(_ url: URL) -> Int? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return Int(String(decoding: data, as: UTF8.self))
}

/// Starts every probe in `arguments` behind one start barrier and releases them
/// together once all are ready, so that they really race.
func startTogether(_ arguments: [[String]], barrier: URL, probes: inout [LaunchedProcess],
                   environment: [String: String] = [:]) throws -> [LaunchedProcess] {
    let started = try arguments.map { try Probe.start($0 + ["--go", barrier.path], environment: environment) }
    probes += started
    for probe in started {
        try #require(probe.waitForLine("ready"), "probe \(probe.arguments) never got ready; stderr: \(probe.standardError)")
    }
    #expect(FileManager.default.createFile(atPath: barrier.path, contents: Data()))
    return started
}

extension MultiProcess {
    @Suite("Coordination across processes", .tags(.multiprocess))
    struct CoordinationAcrossProcesses {
        @Test("4 processes x 250 coordinated read-increment-write cycles end at exactly 1000")
        func fourProcessesIncrement() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("counter")
                try withProbes { probes in
                    let racers = try startTogether(Array(repeating: ["increment", "--file", file.path, "--count", "250"], count: 4),
                                                   barrier: dir.appendingPathComponent("go"), probes: &probes)
                    for probe in racers {
                        #expect(probe.wait(timeout: 60).status == 0, "stderr: \(probe.standardError)")
                    }
                }
                #expect(counter(file) == 1000)
                #expect(names(in: dir) == ["counter", "go"], "no temporary file is left behind, and no lock file stands beside the item")
            }
        }

        @Test("a lock held by a process killed with SIGKILL passes to a waiter in another process within 1 s", .tags(.killed),
              arguments: ["blocking", "polling with a timeout"])
        func killedHolderReleases(waiterKind: String) throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("item")
                try withProbes { probes in
                    let holder = try Probe.start(["hold", "--file", file.path])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")

                    let timeout = waiterKind == "blocking" ? [] : ["--timeout", "60"]
                    let waiter = try Probe.start(["wait-lock", "--file", file.path] + timeout)
                    probes.append(waiter)
                    try #require(waiter.waitForLine("waiting"), "stderr: \(waiter.standardError)")
                    // The waiter must really be waiting: it cannot have the lock while the holder lives.
                    let early = waiter.waitForLine(timeout: 0.3, where: { $0.hasPrefix("acquired") })
                    #expect(early == nil, "the waiter took a lock that a live process holds")

                    let killedAt = Date()
                    #expect(kill(holder.processIdentifier, SIGKILL) == 0)
                    let acquired = waiter.waitForLine(timeout: 1.0, where: { $0.hasPrefix("acquired") })
                    let elapsed = Date().timeIntervalSince(killedAt)
                    #expect(acquired != nil, "the waiter did not get the lock within 1 s of the kill (stderr: \(waiter.standardError))")
                    #expect(elapsed < 1.0)
                    let holderEnd = holder.wait(timeout: 5)
                    #expect(holderEnd.signal != nil && !holderEnd.timedOut)
                    #expect(waiter.wait(timeout: 5).status == 0)
                }
            }
        }

        @Test("a reader reading 10,000 times while a writer replaces a 1 MiB file 200 times never sees it torn, short or empty")
        func readerNeverSeesTornFile() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("blob")
                let size = 1 << 20
                try AtomicFile.write(Data(repeating: 0xFF, count: size), to: file, below: .marked(above: file), durable: false)
                try withProbes { probes in
                    let started = try startTogether([
                        ["read", "--file", file.path, "--count", "10000", "--size", String(size)],
                        ["replace", "--file", file.path, "--count", "200", "--size", String(size)],
                    ], barrier: dir.appendingPathComponent("go"), probes: &probes)
                    let (reader, writer) = (started[0], started[1])
                    #expect(writer.wait(timeout: 60).status == 0, "writer stderr: \(writer.standardError)")
                    #expect(reader.wait(timeout: 60).status == 0, "reader stderr: \(reader.standardError)")
                    let report = try #require(reader.waitForLine(timeout: 1, where: { $0.hasPrefix("read 10000 times, never torn") }))
                    // The test means something only if the reader saw the file change under it.
                    let distinct = report.split(separator: " ").compactMap { Int($0) }.last ?? 0
                    #expect(distinct >= 2, "the reader saw a single content: the two processes did not overlap (\(report))")
                }
                let final = try #require(try AtomicFile.read(file, below: .marked(above: file)))
                #expect(final == Data(repeating: UInt8(199 % 251 + 1), count: size))
                #expect(names(in: dir) == ["blob", "go"], "no temporary file is left behind")
            }
        }

        @Test("with another process holding the lock, a waiter with a 100 ms timeout fails with the timeout error naming the lock file")
        func timeoutAcrossProcesses() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("item")
                let lockFile = try FileCoordinator.lockFileURL(for: file)
                // Outside every device root: the user's private tree, never beside the item.
                #expect(!lockFile.path.hasPrefix(dir.path + "/"))
                #expect(lockFile.lastPathComponent.hasSuffix(".lock") && lockFile.lastPathComponent.utf8.count == 37)
                try withProbes { probes in
                    let holder = try Probe.start(["hold", "--file", file.path])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")

                    // A waiter in another process.
                    let waiter = try Probe.start(["wait-lock", "--file", file.path, "--timeout", "0.1"])
                    probes.append(waiter)
                    #expect(waiter.wait(timeout: 10).status == 3, "stderr: \(waiter.standardError)")
                    let line = waiter.waitForLine(timeout: 1, where: { $0.hasPrefix("timeout:") })
                    #expect(line?.contains(lockFile.path) == true, "got \(waiter.standardOutput)")

                    // A waiter in this process.
                    let error = #expect(throws: AppGroupError.self) {
                        try FileCoordinator(timeout: 0.1).coordinate(writingItemAt: file) { _ in
                            Issue.record("the accessor ran while another process holds the write lock")
                        }
                    }
                    #expect(error == .coordinationTimedOut(path: file.path, lockFile: lockFile.path, seconds: 0.1))
                    #expect(error?.description.contains(lockFile.path) == true)
                    #expect(error?.description.contains("timed out") == true)
                    // A reader is excluded by a writer too.
                    #expect(throws: AppGroupError.coordinationTimedOut(path: file.path, lockFile: lockFile.path, seconds: 0.1)) {
                        try FileCoordinator(timeout: 0.1).coordinate(readingItemAt: file) { _ in }
                    }
                }
            }
        }

        @Test("readers in different processes share; a writer waits for them")
        func readersShareAcrossProcesses() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("item")
                try withProbes { probes in
                    let holder = try Probe.start(["hold", "--file", file.path, "--mode", "read"])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")
                    let ran = try FileCoordinator(timeout: 5).coordinate(readingItemAt: file) { _ in true }
                    #expect(ran)
                    let writer = try Probe.start(["wait-lock", "--file", file.path, "--timeout", "0.1"])
                    probes.append(writer)
                    #expect(writer.wait(timeout: 10).status == 3, "a writer got the lock while another process reads")
                }
            }
        }

        @Test("opposite-order pair locking from two processes, 200 rounds each, never deadlocks and counts 400 on both")
        func oppositeOrderPairs() throws {
            try withTemporaryDirectory { dir in
                let a = dir.appendingPathComponent("a")
                let b = dir.appendingPathComponent("b")
                try withProbes { probes in
                    let racers = try startTogether([
                        ["pair", "--first", a.path, "--second", b.path, "--rounds", "200"],
                        ["pair", "--first", b.path, "--second", a.path, "--rounds", "200"],
                    ], barrier: dir.appendingPathComponent("go"), probes: &probes)
                    // The deadline is the deadlock detector: 400 rounds take well under a second.
                    for probe in racers {
                        #expect(probe.wait(timeout: 30).status == 0, "deadlock or failure; stderr: \(probe.standardError)")
                    }
                }
                #expect(counter(a) == 400)
                #expect(counter(b) == 400)
            }
        }
    }
}
