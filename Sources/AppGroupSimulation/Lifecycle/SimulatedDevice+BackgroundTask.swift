import Foundation

/// Background time a test takes for a target, as the target's code would with
/// UIKit's `beginBackgroundTask(withName:expirationHandler:)`: see
/// ``SimulatedDevice/beginBackgroundTask(for:withName:expirationHandler:)``.
public struct BackgroundTask: Sendable, Hashable {
    /// The task's number (negative: the device's own numbering, apart from the target's activities).
    public let identifier: Int
    /// The process it holds off suspension for.
    public let processIdentifier: Int32
}

extension SimulatedDevice {
    /// Takes background time for `process` from the test, as the target's code
    /// does with `UIApplication.beginBackgroundTask(withName:expirationHandler:)`:
    /// until ``endBackgroundTask(_:)``, ``suspend(_:)`` waits (at most
    /// ``LifecycleSettings/backgroundTimeLimit`` seconds from the task's start,
    /// then `expirationHandler` runs, in this process, before the suspension).
    /// Inside a target, `ProcessInfo.performExpiringActivity(withReason:using:)` does the same.
    /// - Throws: ``SimulationError/lifecycle(_:)`` when the process has ended or is not a target of this device.
    public func beginBackgroundTask(for process: LaunchedProcess, withName name: String? = nil,
                                    expirationHandler: (@Sendable () -> Void)? = nil) throws -> BackgroundTask {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "begin a background task for")
            try connection.require([.foreground, .background], request: "begin a background task for")
            connection.condition.lock()
            defer { connection.condition.unlock() }
            connection.nextTestTask -= 1
            let id = connection.nextTestTask
            connection.activities[id] = (name ?? "background task", Date())
            connection.traceActivityBegan(id)
            connection.testExpirationHandlers[id] = expirationHandler ?? {}
            return BackgroundTask(identifier: id, processIdentifier: process.processIdentifier)
        }
    }

    /// Ends background time taken with ``beginBackgroundTask(for:withName:expirationHandler:)``
    /// (nothing when it has ended or expired already).
    public func endBackgroundTask(_ task: BackgroundTask) {
        guard let connection = life.lifecycle.connection(for: task.processIdentifier) else { return }
        connection.condition.lock()
        if let ended = connection.activities.removeValue(forKey: task.identifier) {
            connection.traceActivityEnded(task.identifier, reason: ended.reason, how: "by the test")
        }
        connection.testExpirationHandlers.removeValue(forKey: task.identifier)
        connection.condition.broadcast()
        connection.condition.unlock()
    }
}
