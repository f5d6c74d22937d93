#if !canImport(Darwin)
import Foundation

/// The locks of one NSFileCoordinator access, taken with the package's locking
/// protocol (``FileCoordinator``: the same lock files, modes and fixed order, so
/// NSFileCoordinator, FileCoordinator and other processes all exclude each other)
/// but waited for in short slices, so that ``NSFileCoordinator/cancel()`` can stop
/// a wait that Apple's coordinator would also abandon.
package struct CancellableLocks {
    /// How long each slice of a wait lasts: the longest a cancel goes unnoticed.
    static let slice: TimeInterval = 0.05

    private(set) var locks: [FileLock] = []
    private let steps: [FileCoordinator.Step]

    /// Takes the locks `requests` need that the current thread does not already
    /// hold (in the protocol's order), giving up when `isCancelled` turns true.
    package init(_ requests: [(FileCoordinator.Item, FileLock.Mode)], isCancelled: () -> Bool) throws {
        var steps = try FileCoordinator().plan(requests, stack: HeldLocks.threadStack)
        var taken: [FileLock] = []
        do {
            var next = 0
            while next < steps.count {
                let lock = try Self.acquire(steps[next], isCancelled: isCancelled)
                taken.append(lock)
                next += 1
                if lock.relocated && steps.count > 1 {
                    // A lock file that moved may now sort elsewhere: all again, in
                    // the order of where they are, so that no two holders deadlock.
                    for lock in taken.reversed() { lock.release() }
                    taken.removeAll()
                    steps = try FileCoordinator().plan(requests, stack: HeldLocks.threadStack)
                    next = 0
                }
            }
        } catch {
            for lock in taken.reversed() { lock.release() }
            throw error
        }
        self.steps = steps
        locks = taken
    }

    /// Runs `body` on the current thread as the holder of these locks, so that a
    /// coordination nested in it does not wait for them.
    package func hold<T>(_ body: () throws -> T) rethrows -> T {
        let stack = HeldLocks.threadStack
        for step in steps { stack.holds.append(HeldLocks.Hold(slot: step.slot, mode: step.mode, owner: nil, token: nil)) }
        defer { stack.holds.removeLast(steps.count) }
        return try body()
    }

    package func release() {
        for lock in locks.reversed() { lock.release() }
    }

    private static func acquire(_ step: FileCoordinator.Step, isCancelled: () -> Bool) throws -> FileLock {
        var asking = true
        while true {
            if isCancelled() { throw CancellationError() }
            // (The error matched in the catch body: a catch pattern on this typed
            // error inside the loop crashes Swift 6.3.1's SIL verifier.)
            do {
                return try FileLock.acquire(step.slot, mode: step.mode, timeout: slice, itemPath: step.itemPath, asking: asking)
            } catch {
                asking = false
                guard case .coordinationTimedOut = error else { throw error }
                continue // a slice is over: look at the cancel flag, then wait again
            }
        }
    }
}
#endif
