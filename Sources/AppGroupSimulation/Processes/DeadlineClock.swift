import AppGroupContainer
import AppGroupSystem
import Foundation

/// Runs actions at their deadlines on one thread of its own: the deadlines of the
/// async process waits must fire, and a process past its deadline must be killed,
/// even while busy tests occupy every thread of Dispatch's global queues and of
/// Swift's cooperative pool. Actions are short and never wait for a task.
final class DeadlineClock: @unchecked Sendable {
    // @unchecked: `pending`, `nextID` and `started` are guarded by `condition`.
    static let shared = DeadlineClock()

    /// Names a scheduled action, to cancel it.
    struct ID: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private struct Entry {
        let id: UInt64
        let deadline: Date
        let action: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var pending: [Entry] = []
    private var nextID: UInt64 = 0
    private var started = false

    /// Runs `action` once, `seconds` from now (at once for zero or less), on the
    /// clock's thread, unless it is cancelled first.
    @discardableResult
    func schedule(after seconds: TimeInterval, _ action: @escaping @Sendable () -> Void) -> ID {
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        pending.append(Entry(id: nextID, deadline: Date().addingTimeInterval(max(seconds, 0)), action: action))
        if !started {
            started = true
            // Named from inside, for the kernel (Foundation's Thread.name does not always reach it on Linux).
            let thread = Thread { [self] in
                ThreadName.setCurrent("deadlines")
                run()
            }
            thread.start()
        }
        condition.signal()
        return ID(value: nextID)
    }

    /// Drops a scheduled action that has not run yet (no effect once it ran), so
    /// that waits that ended early leave nothing behind.
    func cancel(_ id: ID) {
        condition.lock()
        pending.removeAll { $0.id == id.value }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            let now = Date()
            let due = pending.filter { $0.deadline <= now }
            if !due.isEmpty {
                pending.removeAll { $0.deadline <= now }
                condition.unlock()
                for entry in due { entry.action() }
                condition.lock()
            } else if let next = pending.map(\.deadline).min() {
                _ = condition.wait(until: next)
            } else {
                condition.wait()
            }
        }
    }
}
