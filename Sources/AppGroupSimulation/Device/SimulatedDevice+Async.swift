import AppGroupContainer
import Foundation

// The asynchronous forms, for async tests: none of them blocks a thread of
// Swift's cooperative pool while it waits.
extension SimulatedDevice {
    /// Runs `body` with a fresh device and removes the device afterwards: the
    /// asynchronous form of ``with(name:_:)`` (a device whose `body` threw counts as failed).
    @discardableResult
    public static func with<T>(name: String = "SimulatedDevice", isolation: isolated (any Actor)? = #isolation,
                               _ body: (SimulatedDevice) async throws -> T) async throws -> T {
        let device = try SimulatedDevice(name: name)
        defer { device.remove() }
        do {
            return try await body(device)
        } catch {
            device.recordFailure("the body of SimulatedDevice.with threw \(error)")
            throw error
        }
    }

    /// The asynchronous form of ``run(as:_:)``: runs `body` as `target` on this
    /// device. Like ``SimulatedTarget/run(on:environment:isolation:_:)``, it binds the
    /// target to the current task and the tasks it starts (hopped work is answered as
    /// for the synchronous form) and never waits for other scopes.
    public func run<T>(as target: SimulatedTarget, isolation: isolated (any Actor)? = #isolation,
                       _ body: (ContainerResolver) async throws -> T) async rethrows -> T {
        let resolver = resolver(for: target)
        return try await scope(for: target).run(isolation: isolation) { try await body(resolver) }
    }

    /// Runs `executable` as `target` (nil: with no identity) to its end, suspending
    /// rather than blocking: the asynchronous form of ``spawn(_:_:as:environment:timeout:)``.
    /// Chain ``ProcessOutcome/requireSuccess()`` to throw when it fails.
    /// - Parameters:
    ///   - executable: the program to run.
    ///   - arguments: its arguments.
    ///   - target: who it runs as; nil for no identity.
    ///   - extra: variables added to its environment, after the target's.
    ///   - timeout: seconds before the process is killed (SIGKILL) and
    ///     ``ProcessOutcome/timedOut`` is set.
    ///   - isolation: the caller's actor, inherited.
    public func run(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                    environment extra: [String: String] = [:], timeout: TimeInterval = 60,
                    isolation: isolated (any Actor)? = #isolation) async throws -> ProcessOutcome {
        let process = try launch(executable, arguments, as: target, environment: extra)
        return await process.outcome(timeout: timeout)
    }

    /// Runs the executable product `name` (built beside the test bundle, see
    /// ``builtExecutable(named:)``) as `target` to its end, suspending rather than blocking.
    ///
    /// ```swift
    /// try await device.run(built: "NotesShareHost", ["--url", "https://example.com"],
    ///                      as: notes.shareExtension).requireSuccess()
    /// ```
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` naming the target and this device when it is not built.
    public func run(built name: String, _ arguments: [String], as target: SimulatedTarget?,
                    environment extra: [String: String] = [:], timeout: TimeInterval = 60,
                    isolation: isolated (any Actor)? = #isolation) async throws -> ProcessOutcome {
        try await run(builtExecutable(named: name, for: target), arguments, as: target, environment: extra, timeout: timeout)
    }
}
