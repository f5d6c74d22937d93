import Foundation

/// Keeps a file this process writes from being held open for writing by a child
/// it starts. A child gets a copy of every descriptor between its fork and its
/// `execve` (close-on-exec closes them only then), so a spawn on one thread while
/// another thread writes an executable leaves that file open for writing in the
/// child for a moment, and an `execve` of the file in that moment fails with
/// ETXTBSY. Every spawn of the package holds the gate shared from fork to exec;
/// writing an executable holds it alone, from its `open` to its `close`.
package enum SpawnGate {
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_rwlock_t> = {
        let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
        return lock
    }()

    /// Runs `body`, which starts a child, while no executable is being written.
    package static func spawning<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body`, which opens, writes and closes an executable, while no child is being started.
    package static func writingExecutable<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
