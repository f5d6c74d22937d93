import AppGroupContainer
import AppGroupSystem
import Foundation

/// A task executor with one thread of its own, for one test: the test's
/// synchronous code and the continuations of its tasks run there, so a test that
/// blocks (a synchronous process wait, a lock, a sleep) blocks only this thread,
/// never one of Swift's cooperative pool.
///
/// Jobs run one at a time, in order. The thread ends once ``finish()`` was called
/// and nothing is left to run; a job that still arrives afterwards (a task of the
/// test that outlived it) starts a thread again, so no job is ever dropped.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class TestThread: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `running` and `finished` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var running = false
    private var finished = false
    private let name: String

    init(name: String) {
        self.name = name
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if !running {
            running = true
            // Named from inside, for the kernel: on Linux Foundation's Thread.name
            // does not always reach it (the thread keeps its creator's name).
            let thread = Thread { [self] in
                ThreadName.setCurrent(name)
                drain()
            }
            // Tests run deep recursions (nested property lists); give them the
            // stack a main thread has.
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
