import Foundation

/// Runs `body`, and every child task it starts, on threads of its own instead of the
/// cooperative pool. For async tests where a task holds a lock across an `await`:
/// on two cores the pool has two threads, and blocking tests running beside it
/// (waiting for child processes) can occupy both for longer than the lock timeout,
/// so the holder could not resume and its waiters would time out through no fault
/// of the coordinator.
package func onOwnThreads<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
        return try await withTaskExecutorPreference(OwnThreadsExecutor.shared, operation: body)
    }
    return try await body() // task executors need a newer Apple runtime; Linux always has them
}

/// A task executor whose jobs run on a concurrent dispatch queue (threads the
/// cooperative pool does not share).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
package final class OwnThreadsExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = OwnThreadsExecutor()
    private let queue = DispatchQueue(label: "tests.own-threads", attributes: .concurrent)

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
