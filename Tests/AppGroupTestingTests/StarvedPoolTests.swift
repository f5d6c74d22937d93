import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Every thread of Swift's cooperative pool blocked (as by busy synchronous tests
/// on a small CI machine): the deadline and the cancellation of an async process
/// wait still end the process on time, and the outcome says how it ended.
@Suite(.tags(.multiprocess, .killed)) struct StarvedPoolTests {
    @Test("a 0.2 s deadline kills `sleep 60` on time while every pool thread is blocked, and the outcome says timed out and SIGKILL")
    func aDeadlineKillsOnTimeWhileThePoolIsBlocked() async throws {
        let blockade = PoolBlockade()
        let process = try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["60"],
                                          environment: ProcessInfo.processInfo.environment)
        let watch = blockade.lift(after: 2) { ProcessState.hasEnded(process.processIdentifier) }
        let end = await process.outcome(timeout: 0.2)
        let seen = watch.result()
        try #require(seen.poolWasBlocked, "the blockade did not hold the pool, so this test proved nothing")
        #expect(seen.observation == true, "2 s after a 0.2 s deadline, with the pool blocked, the process was still running")
        #expect(end.timedOut && end.signal == SIGKILL, "outcome: \(end)")
    }

    @Test("cancelling the task that awaits an outcome kills the process at once while every pool thread is blocked")
    func cancellingKillsOnTimeWhileThePoolIsBlocked() async throws {
        let process = try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["60"],
                                          environment: ProcessInfo.processInfo.environment)
        let waiting = Task { await process.outcome(timeout: 600) }
        // The wait must have begun before the pool is blocked (a task not yet
        // started cannot start then either).
        let began = Date()
        while process.suspendedWaitCount == 0 && Date().timeIntervalSince(began) < 60 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(process.suspendedWaitCount > 0, "the awaiting task never began its wait")
        // Cancelled from a plain thread while the pool is blocked: the kill must
        // not wait for a pool thread either.
        let blockade = PoolBlockade()
        let cancelling = Thread {
            usleep(300_000)
            waiting.cancel()
        }
        cancelling.start()
        let watch = blockade.lift(after: 2) { ProcessState.hasEnded(process.processIdentifier) }
        let end = await waiting.value
        let seen = watch.result()
        try #require(seen.poolWasBlocked, "the blockade did not hold the pool, so this test proved nothing")
        #expect(seen.observation == true, "2 s after the cancellation, with the pool blocked, the process was still running")
        #expect(end.signal == SIGKILL && !end.timedOut, "outcome: \(end)")
    }
}

/// Holds every thread of the cooperative pool: far more detached tasks than the
/// pool has threads, each blocked until the blockade is lifted from a thread of
/// its own.
final class PoolBlockade: @unchecked Sendable {
    // @unchecked: the semaphore and the canary's flag are thread-safe.
    private let gate = DispatchSemaphore(value: 0)
    private let blockers = 8 * max(ProcessInfo.processInfo.activeProcessorCount, 2)
    private let canaryRan = Flag()

    init() {
        for _ in 0..<blockers {
            Task.detached { [gate] in Self.block(on: gate) }
        }
        // Queued behind the blockers: it runs only once a pool thread is free.
        Task.detached { [canaryRan] in canaryRan.set() }
    }

    private static func block(on gate: DispatchSemaphore) { gate.wait() }

    struct Seen: Sendable {
        /// The canary had not run when the blockade was lifted.
        let poolWasBlocked: Bool
        /// What `observe` returned just before the blockade was lifted.
        let observation: Bool
    }

    /// After `seconds`, on a thread of its own: notes whether the pool is still
    /// held and what `observe` says, then lifts the blockade.
    func lift(after seconds: Double, observing observe: @escaping @Sendable () -> Bool) -> Watch {
        let watch = Watch()
        let thread = Thread { [self] in
            usleep(UInt32(seconds * 1_000_000))
            let seen = Seen(poolWasBlocked: !canaryRan.get(), observation: observe())
            for _ in 0..<blockers { gate.signal() }
            watch.finish(seen)
        }
        thread.start()
        return watch
    }

    /// The result of a ``lift(after:observing:)``, once the blockade is lifted.
    final class Watch: @unchecked Sendable {
        // @unchecked: `seen` is guarded by `done`.
        private let done = NSCondition()
        private var seen: Seen?

        fileprivate func finish(_ value: Seen) {
            done.lock()
            seen = value
            done.broadcast()
            done.unlock()
        }

        /// Blocks until the blockade is lifted (it is, by then, when the awaited
        /// outcome has come back: the outcome needed a pool thread).
        func result() -> Seen {
            done.lock()
            defer { done.unlock() }
            while true {
                if let seen { return seen }
                done.wait()
            }
        }
    }
}

/// A thread-safe flag.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    func get() -> Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

/// What the kernel says of a process, read from /proc without reaping it.
enum ProcessState {
    /// True when `pid` has ended: a zombie not yet reaped by its parent, or gone.
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "Z" || state == "X"
    }
}
