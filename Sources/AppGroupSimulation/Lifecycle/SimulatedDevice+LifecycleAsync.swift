import AppGroupSystem
import Foundation

// The asynchronous forms of the lifecycle's requests, for async tests: each runs
// the synchronous request on a thread of its own, so that a suspension waiting for
// background time (up to LifecycleSettings.backgroundTimeLimit) never holds a
// thread of Swift's cooperative pool.
extension SimulatedDevice {
    /// The asynchronous form of ``moveToBackground(_:)``.
    public func moveToBackground(_ process: LaunchedProcess, isolation: isolated (any Actor)? = #isolation) async throws {
        try await offPool { try self.moveToBackground(process) }
    }

    /// The asynchronous form of ``suspend(_:)``.
    @discardableResult
    public func suspend(_ process: LaunchedProcess, isolation: isolated (any Actor)? = #isolation) async throws -> SuspensionResult {
        try await offPool { try self.suspend(process) }
    }

    /// The asynchronous form of ``resume(_:)``.
    public func resume(_ process: LaunchedProcess, isolation: isolated (any Actor)? = #isolation) async throws {
        try await offPool { try self.resume(process) }
    }

    /// The asynchronous form of ``terminate(_:)``.
    @discardableResult
    public func terminate(_ process: LaunchedProcess, isolation: isolated (any Actor)? = #isolation) async throws -> TerminationReport {
        try await offPool { try self.terminate(process) }
    }

    /// The asynchronous form of ``termination(of:timeout:)``.
    public func termination(of process: LaunchedProcess, timeout: TimeInterval = 30,
                            isolation: isolated (any Actor)? = #isolation) async throws -> TerminationReport? {
        try await offPool { try self.termination(of: process, timeout: timeout) }
    }

    /// Runs `body` on a new thread and resumes with its result.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                ThreadName.setCurrent("lifecycle request")
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }
}

extension SimulatedDevice {
    /// The asynchronous form of ``jetsam(_:)``.
    @discardableResult
    public func jetsam(_ process: LaunchedProcess, isolation: isolated (any Actor)? = #isolation) async throws -> TerminationReport {
        try await offPool { try self.jetsam(process) }
    }
}

extension SimulatedDevice {
    /// The asynchronous form of ``lock()``.
    public func lock(isolation: isolated (any Actor)? = #isolation) async throws {
        try await offPool { try self.lock() }
    }

    /// The asynchronous form of ``unlock()``.
    public func unlock(isolation: isolated (any Actor)? = #isolation) async throws {
        try await offPool { try self.unlock() }
    }

    /// The asynchronous form of ``reboot()``.
    public func reboot(isolation: isolated (any Actor)? = #isolation) async throws {
        try await offPool { try self.reboot() }
    }
}
