@testable import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// Counts accessors running at once, to prove exclusion directly (not only
/// through the final count).
final class Occupancy: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private(set) var maximum = 0

    func enter() { lock.lock(); inside += 1; maximum = max(maximum, inside); lock.unlock() }
    func leave() { lock.lock(); inside -= 1; lock.unlock() }
    var peak: Int { lock.lock(); defer { lock.unlock() }; return maximum }
}

@Suite("Coordination in one process", .dedicatedThreads)
struct CoordinationInProcess {
    /// One coordinated read-increment-write cycle on a counter file.
    static func increment(_ url: URL, _ coordinator: FileCoordinator, _ occupancy: Occupancy) throws {
        try coordinator.coordinate(writingItemAt: url) { url in
            occupancy.enter()
            defer { occupancy.leave() }
            let value = counter(url) ?? 0
            try AtomicFile.write(Data(String(value + 1).utf8), to: url, below: .marked(above: url), durable: false)
        }
    }

    @Test("4 threads x 250 cycles end at exactly 1000 (classic fcntl locks would let threads overlap)",
          arguments: ["a coordinator per thread", "one shared coordinator"])
    func fourThreads(sharing: String) throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("counter")
            let occupancy = Occupancy()
            let shared = FileCoordinator()
            let failures = Locked<[String]>([])
            let finished = onThreads(4) { _ in
                let coordinator = sharing == "one shared coordinator" ? shared : FileCoordinator()
                for _ in 0..<250 {
                    do { try Self.increment(file, coordinator, occupancy) } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(finished, "the threads hung")
            #expect(failures.withLock { $0 } == [])
            #expect(counter(file) == 1000)
            #expect(occupancy.peak == 1, "two writers were inside at once")
        }
    }

    @Test("4 tasks x 250 cycles with the async form end at exactly 1000, never two inside at once")
    func fourTasks() async throws {
        try await onOwnThreads { try await withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("counter")
            let occupancy = Occupancy()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let coordinator = FileCoordinator(timeout: 60)
                        for _ in 0..<250 {
                            try await coordinator.coordinate(writingItemAt: file) { url in
                                occupancy.enter()
                                defer { occupancy.leave() }
                                let value = counter(url) ?? 0
                                await Task.yield() // invite another task in, if the lock let it
                                try AtomicFile.write(Data(String(value + 1).utf8), to: url, below: .marked(above: url), durable: false)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(counter(file) == 1000)
            #expect(occupancy.peak == 1, "two tasks were inside at once")
        } }
    }

    @Test("async tasks and threads exclude each other on one item")
    func tasksAndThreadsExclude() async throws {
        try await onOwnThreads { try await withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("counter")
            let occupancy = Occupancy()
            let threads = Task.detached {
                onThreads(2) { _ in
                    for _ in 0..<100 { try? Self.increment(file, FileCoordinator(), occupancy) }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        for _ in 0..<100 {
                            try await FileCoordinator(timeout: 60).coordinate(writingItemAt: file) { url in
                                occupancy.enter()
                                defer { occupancy.leave() }
                                let value = counter(url) ?? 0
                                await Task.yield()
                                try AtomicFile.write(Data(String(value + 1).utf8), to: url, below: .marked(above: url), durable: false)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(await threads.value)
            #expect(counter(file) == 400)
            #expect(occupancy.peak == 1)
        } }
    }

    @Test("readers on different threads share the item; a writer on another thread waits for them")
    func readersShare() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("item")
            let coordinator = FileCoordinator(timeout: 5)
            try coordinator.coordinate(readingItemAt: file) { _ in
                let results = Locked<[String]>([])
                let finished = onThreads(1) { _ in
                    do {
                        try FileCoordinator(timeout: 5).coordinate(readingItemAt: file) { _ in results.withLock { $0.append("read") } }
                    } catch { results.withLock { $0.append("read failed: \(error)") } }
                    do {
                        try FileCoordinator(timeout: 0.1).coordinate(writingItemAt: file) { _ in results.withLock { $0.append("wrote") } }
                    } catch AppGroupError.coordinationTimedOut {
                        results.withLock { $0.append("writer waited") }
                    } catch { results.withLock { $0.append("write failed: \(error)") } }
                }
                #expect(finished)
                #expect(results.withLock { $0 } == ["read", "writer waited"])
            }
        }
    }

    @Test("nested coordination on one thread: write in write, read in write and read in read run at once")
    func nestedReentrant() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("item")
            // A timeout turns a wrong wait-for-itself into a failure instead of a hang.
            let outer = FileCoordinator(timeout: 2)
            let inner = FileCoordinator(timeout: 2)
            let result = try outer.coordinate(writingItemAt: file) { url in
                let a = try outer.coordinate(writingItemAt: url) { _ in 1 }
                let b = try inner.coordinate(writingItemAt: url, options: .forMerging) { _ in 2 }
                let c = try inner.coordinate(readingItemAt: url) { _ in 3 }
                let d = try inner.coordinate(readingItemAt: url, writingItemAt: url) { _, _ in 4 }
                return a + b + c + d
            }
            #expect(result == 10)
            let readInRead = try outer.coordinate(readingItemAt: file) { url in
                try inner.coordinate(readingItemAt: url) { _ in "ok" }
            }
            #expect(readInRead == "ok")
            // While the outer write is held, re-entrancy belongs to this thread only.
            try outer.coordinate(writingItemAt: file) { _ in
                let other = Locked<String>("")
                #expect(onThreads(1) { _ in
                    do {
                        try FileCoordinator(timeout: 0.1).coordinate(writingItemAt: file) { _ in other.withLock { $0 = "entered" } }
                    } catch { other.withLock { $0 = "\(error)" } }
                })
                #expect(other.withLock { $0 }.hasPrefix("timed out"), "another thread got in: \(other.withLock { $0 })")
            }
            // Everything was released: another thread gets the lock at once.
            #expect(onThreads(1) { _ in
                #expect(throws: Never.self) { try FileCoordinator(timeout: 2).coordinate(writingItemAt: file) { _ in } }
            })
        }
    }

    @Test("asking to write inside a read of the same item throws nestedCoordinationUpgrade instead of hanging")
    func nestedUpgradeThrows() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("item")
            let coordinator = FileCoordinator(timeout: 2)
            var continued = false
            try coordinator.coordinate(readingItemAt: file) { url in
                let error = #expect(throws: AppGroupError.self) {
                    try coordinator.coordinate(writingItemAt: url) { _ in Issue.record("wrote inside a read") }
                }
                #expect(error == .nestedCoordinationUpgrade(path: file.path))
                #expect(error?.description.contains(file.path) == true)
                #expect(throws: AppGroupError.nestedCoordinationUpgrade(path: file.path)) {
                    try FileCoordinator(timeout: 2).coordinate(writingItemAt: url, writingItemAt: dir.appendingPathComponent("other")) { _, _ in }
                }
                continued = true
            }
            #expect(continued)
            // The failed upgrade left nothing held: a writer on another thread gets in.
            #expect(onThreads(1) { _ in
                #expect(throws: Never.self) { try FileCoordinator(timeout: 2).coordinate(writingItemAt: file) { _ in } }
            })
        }
    }

    @Test("nested async coordination in one task runs at once; a write inside an async read throws")
    func nestedAsync() async throws {
        try await withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("item")
            let coordinator = FileCoordinator(timeout: 2)
            let value = try await coordinator.coordinate(writingItemAt: file) { url in
                try await coordinator.coordinate(writingItemAt: url) { _ in
                    try await coordinator.coordinate(readingItemAt: url) { (_: URL) async -> Int in 7 }
                }
            }
            #expect(value == 7)
            let upgrade = try await coordinator.coordinate(readingItemAt: file) { url -> String in
                do {
                    try await coordinator.coordinate(writingItemAt: url) { (_: URL) async in }
                    return "wrote"
                } catch let error as AppGroupError {
                    return error == .nestedCoordinationUpgrade(path: file.path) ? "refused" : "\(error)"
                }
            }
            #expect(upgrade == "refused")
        }
    }

    @Test("an error thrown by the accessor reaches the caller and releases the lock")
    func accessorErrorReleases() throws {
        struct Boom: Error, Equatable {}
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("item")
            #expect(throws: Boom()) { try FileCoordinator().coordinate(writingItemAt: file) { _ in throw Boom() } }
            #expect(onThreads(1) { _ in
                #expect(throws: Never.self) { try FileCoordinator(timeout: 2).coordinate(writingItemAt: file) { _ in } }
            })
        }
    }

    @Test("resolvesSymbolicLink hands the accessor the link's target; a plain read gets the link itself")
    func resolvesSymbolicLink() throws {
        try withTemporaryDirectory { dir in
            let target = dir.appendingPathComponent("target")
            let link = dir.appendingPathComponent("link")
            try Data("x".utf8).write(to: target)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let resolved = try FileCoordinator().coordinate(readingItemAt: link, options: .resolvesSymbolicLink) { $0 }
            #expect(resolved.path == target.path)
            let plain = try FileCoordinator().coordinate(readingItemAt: link) { $0 }
            #expect(plain.path == link.path)
        }
    }

    @Test("coordinating something that is not a file item is a typed error",
          arguments: ["https://example.com/file", "file:///", "file:///tmp/.."])
    func notAnItem(address: String) throws {
        let url = try #require(URL(string: address))
        #expect(throws: AppGroupError.self) { try FileCoordinator().coordinate(writingItemAt: url) { _ in } }
    }
}

extension MultiProcess {
    @Suite("Async coordination", .tags(.multiprocess))
    struct AsyncCoordination {
        @Test("async waiters for a lock held by another process leave the cooperative pool free, then all get the lock")
        func asyncWaitersDoNotBlockThePool() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("item")
                try withProbes { probes in
                    let holder = try Probe.start(["hold", "--file", file.path])
                    probes.append(holder)
                    try #require(holder.waitForLine("locked"), "stderr: \(holder.standardError)")

                    // Far more waiters than the pool has threads (one per core), in a probe
                    // process: this runner's own pool is shared with every other test.
                    let waiters = 4 * max(ProcessInfo.processInfo.activeProcessorCount, 2)
                    let probe = try Probe.start(["async-waiters", "--file", file.path, "--count", String(waiters)])
                    probes.append(probe)
                    #expect(probe.waitForLine("pool free", timeout: 10), "the waiting tasks starved the cooperative pool: \(probe.standardError)")
                    usleep(200_000)
                    #expect(!probe.standardOutput.contains("acquired"), "a task got a lock another process holds")

                    holder.kill()
                    #expect(probe.wait(timeout: 30).status == 0, "stderr: \(probe.standardError)")
                    #expect(probe.standardOutput.contains("acquired \(waiters)"))
                }
            }
        }
    }
}

@Suite("Re-entrancy belongs to the current task", .dedicatedThreads)
struct ReentrancyOwner {
    /// Blocks a thread (never the cooperative pool) until `semaphore` is signalled.
    static func waitOffPool(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                semaphore.wait()
                continuation.resume()
            }.start()
        }
    }

    @Test("a task started inside an accessor does not inherit the lock once the accessor has returned")
    func escapedTaskDoesNotInherit() async throws {
        try await withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("item")
            let outerDone = DispatchSemaphore(value: 0)
            let otherHolds = DispatchSemaphore(value: 0)
            let otherMayRelease = DispatchSemaphore(value: 0)
            var escaped: Task<String, Never>?
            try FileCoordinator().coordinate(writingItemAt: file) { _ in
                escaped = Task {
                    await Self.waitOffPool(outerDone)
                    await Self.waitOffPool(otherHolds)
                    // Another thread holds the lock now: this must wait (and time out), not walk in.
                    do {
                        try FileCoordinator(timeout: 0.3).coordinate(writingItemAt: file) { _ in }
                        return "entered while another thread holds the lock"
                    } catch AppGroupError.coordinationTimedOut {
                        return "waited"
                    } catch { return "\(error)" }
                }
            }
            outerDone.signal()
            Thread {
                try? FileCoordinator().coordinate(writingItemAt: file) { _ in
                    otherHolds.signal()
                    otherMayRelease.wait()
                }
            }.start()
            let result = await escaped?.value
            otherMayRelease.signal()
            #expect(result == "waited")
        }
    }

    @Test("a task started inside an accessor waits for the accessor to finish before it enters",
          arguments: ["in a task", "on a plain thread"])
    func taskStartedInsideWaitsForOuter(context: String) async throws {
        try await withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("counter")
            let log = Locked<[String]>([])
            let inner = Locked<Task<Void, Error>?>(nil)
            let outer: @Sendable () throws -> Void = {
                try FileCoordinator().coordinate(writingItemAt: file) { url in
                    log.withLock { $0.append("outer in") }
                    inner.withLock {
                        $0 = Task {
                            try await FileCoordinator(timeout: 10).coordinate(writingItemAt: file) { (_: URL) async in
                                log.withLock { $0.append("inner in") }
                            }
                        }
                    }
                    usleep(200_000) // the task has every chance to run now, and must not get in
                    log.withLock { $0.append("outer out") }
                }
            }
            if context == "in a task" {
                try outer()
            } else {
                // Outside any task, task-local values live in the thread's own storage,
                // and a Task started there inherits them all the same.
                #expect(onThreads(1) { _ in #expect(throws: Never.self) { try outer() } })
            }
            try await inner.withLock { $0 }?.value
            #expect(log.withLock { $0 } == ["outer in", "outer out", "inner in"])
        }
    }

    /// A thread remembers the item it coordinated last and reuses its slot
    /// for the same URL string. Guards that memo: a URL that differs only in Unicode
    /// normalization, or has the same relative string against another base, is
    /// another item with another lock file, in whatever order one thread asks.
    @Test("the thread's memo of its last item never answers for a normalization twin or another base")
    func lastItemMemo() throws {
        try withTemporaryDirectory { dir in
            let a = dir.appendingPathComponent("a", isDirectory: true), b = dir.appendingPathComponent("b", isDirectory: true)
            for sub in [a, b] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false) }
            let nfc = dir.appendingPathComponent("caf\u{E9}"), nfd = dir.appendingPathComponent("cafe\u{301}")
            let inA = URL(fileURLWithPath: "item", relativeTo: a), inB = URL(fileURLWithPath: "item", relativeTo: b)
            let coordinator = FileCoordinator()
            func lock(_ url: URL) throws -> String { try coordinator.lockFile(for: url).path }
            // Each asked twice in a row (the second from the memo) and after the others.
            let first = try [nfc, nfc, nfd, nfd, inA, inA, inB, inB].map(lock)
            let again = try [nfd, nfc, inB, inA].map(lock)
            #expect(first[0] == first[1] && first[2] == first[3] && first[4] == first[5] && first[6] == first[7])
            #expect(Set([first[0], first[2], first[4], first[6]]).count == 4, "four items, four lock files: \(first)")
            #expect(again == [first[2], first[0], first[6], first[4]])
            // The relative URLs lock what their absolute paths lock.
            #expect(try lock(a.appendingPathComponent("item")) == first[4])
            #expect(try lock(b.appendingPathComponent("item")) == first[6])
        }
    }
}
