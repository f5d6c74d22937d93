import Foundation
import Testing

// This target depends on PropertyLists and the small TestSupport alone, not on the
// device stack below AppGroupTesting: the codec stands apart from the package, and so
// do its tests. AppGroupTesting's dedicated-threads trait is the one thing they need
// from it, so it is copied here (TestSupport cannot hold it: a target that imports it
// and AppGroupTesting would see two `.dedicatedThreads`).

/// A trait that runs each test on a thread of its own, never on Swift's cooperative
/// pool: these tests are long synchronous loops, and on a two-core machine two of
/// them on the pool would stall every async test of the run (and the narrowed-pool
/// CI run has one pool thread). A copy of AppGroupTesting's trait.
struct DedicatedThreadsTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is attached to.
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        // Only a test case gets a thread and a turn, not the suite around it.
        guard testCase != nil else { return try await function() }
        // Task executors need Apple's 2024 runtimes; before them the test runs on the pool.
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return try await function() }
        await TestSlots.shared.take()
        let thread = TestThread(name: "test: " + test.name)
        do {
            try await withTaskExecutorPreference(thread) { try await function() }
        } catch {
            thread.finish()
            await TestSlots.shared.giveBack()
            throw error
        }
        thread.finish()
        await TestSlots.shared.giveBack()
    }
}

extension Trait where Self == DedicatedThreadsTrait {
    /// Each test of this suite runs on a thread of its own: see ``DedicatedThreadsTrait``.
    static var dedicatedThreads: DedicatedThreadsTrait { DedicatedThreadsTrait() }
}

/// A task executor with one thread of its own (8 MiB of stack, as a main thread),
/// for one test. Jobs run one at a time, in order; the thread ends once
/// ``finish()`` was called and nothing is left, and starts again for a late job.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class TestThread: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `running` and `finished` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var running = false
    private var finished = false
    private let name: String

    init(name: String) { self.name = name }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if !running {
            running = true
            let thread = Thread { [self] in drain() }
            thread.name = name
            thread.stackSize = 8 << 20
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// The test is over: the thread ends when its queue is empty.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func drain() {
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
            } else if finished {
                running = false
                condition.unlock()
                return
            } else {
                condition.wait()
            }
        }
    }
}

/// How many of this target's tests run on dedicated threads at once: half the
/// cores, at least one. AppGroupTesting's trait keeps its own count for the other
/// targets' tests; before they moved here these tests shared that count, so taking
/// half keeps the run's load about where it was.
actor TestSlots {
    static let shared = TestSlots(count: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    /// Waits, suspended, for a free slot and takes it.
    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back: to the longest waiter, else to the free count.
    func giveBack() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
