import Foundation

/// Runs actions at their deadlines on one thread of its own: the deadlines of the
/// async process waits must fire even while busy tests occupy every thread of
/// Dispatch's global queues and of Swift's cooperative pool.
final class DeadlineClock: @unchecked Sendable {
    // @unchecked: `pending` and `started` are guarded by `condition`.
    static let shared = DeadlineClock()

    private struct Entry {
        let deadline: Date
        let action: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var pending: [Entry] = []
    private var started = false

    /// Runs `action` once, `seconds` from now (at once for zero or less).
    func schedule(after seconds: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(Entry(deadline: Date().addingTimeInterval(max(seconds, 0)), action: action))
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "LaunchedProcess deadlines"
            thread.start()
        }
        condition.signal()
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
