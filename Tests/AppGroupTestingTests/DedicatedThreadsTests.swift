import AppGroupTesting
import Foundation
import Testing

/// The `.dedicatedThreads` trait: a test under it runs on a thread of its own,
/// never on the cooperative pool, and no more of them run at once than the
/// machine has cores.
@Suite(.dedicatedThreads) struct DedicatedThreadsTests {
    static let running = Counter()

    @Test("a synchronous test runs on its own thread, and blocking it leaves the pool free for other tasks")
    func aBlockedTestLeavesThePoolFree() {
        #expect(Self.threadName().hasPrefix("test: "), "ran on \(Self.threadName())")
        // Blocks this thread until a task on the pool has run: on a pool thread,
        // with every other pool thread busy, it would wait its whole deadline.
        let ran = Flag()
        Task.detached { ran.set() }
        let deadline = Date().addingTimeInterval(30)
        while !ran.get() && Date() < deadline { usleep(1_000) }
        #expect(ran.get())
    }

    @Test("an async test's continuations come back to its own thread")
    func anAsyncTestResumesOnItsThread() async throws {
        try await Task.sleep(for: .milliseconds(20))
        #expect(Self.threadName().hasPrefix("test: "), "resumed on \(Self.threadName())")
    }

    @Test("no more tests run at once than the machine has cores (at least two), or APP_GROUP_TEST_SLOTS", arguments: 0..<8)
    func atMostOnePerCoreAtOnce(case: Int) {
        let now = Self.running.enter()
        usleep(100_000)
        Self.running.leave()
        let slots = ProcessInfo.processInfo.environment["APP_GROUP_TEST_SLOTS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        #expect(now <= slots ?? max(2, ProcessInfo.processInfo.activeProcessorCount), "\(now) ran at once")
    }

    /// The calling thread's name as the kernel has it.
    private static func threadName() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? "?"
    }
}

/// How many are inside at once, and the most seen.
final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var inside = 0

    func enter() -> Int {
        lock.lock()
        defer { lock.unlock() }
        inside += 1
        return inside
    }

    func leave() {
        lock.lock()
        inside -= 1
        lock.unlock()
    }
}
