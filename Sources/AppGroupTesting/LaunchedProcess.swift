import AppGroupContainer
import Foundation

/// How a spawned process ended and what it printed.
public struct ProcessOutcome: Sendable, Hashable {
    /// The exit status, or the signal number when ``signal`` is set.
    public let status: Int32
    /// The signal that killed it, if one did.
    public let signal: Int32?
    /// True when ``SimulatedDevice/spawn(_:_:as:environment:timeout:)`` killed it at its timeout.
    public let timedOut: Bool
    /// Everything it wrote to standard output.
    public let standardOutput: String
    /// Everything it wrote to standard error.
    public let standardError: String

    /// Exited by itself with status 0.
    public var succeeded: Bool { signal == nil && status == 0 && !timedOut }
    /// Standard output split into lines (no empty last line).
    public var outputLines: [String] { standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
}

/// A process started by ``SimulatedDevice/launch(_:_:as:environment:)``: its
/// output is collected as it comes, so a test can wait for a line, then kill it.
public final class LaunchedProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched under `state`'s lock or after exit;
    // every other stored property is immutable or is itself a lock.
    private let process: Process
    private let state = NSCondition()
    private var output = Data()
    private var errorOutput = Data()
    private var openStreams = 2
    private var exited = false
    private var killedAtTimeout = false

    /// The child's process id.
    public let processIdentifier: Int32

    /// Starts `executable` with exactly `environment` (see
    /// ``SimulatedDevice/environment(for:extra:)`` for a target's).
    public init(executable: URL, arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        processIdentifier = process.processIdentifier
        for (pipe, isError) in [(out, false), (err, true)] {
            let handle = pipe.fileHandleForReading
            let thread = Thread { [self] in
                while true {
                    let chunk = handle.availableData
                    state.lock()
                    if chunk.isEmpty {
                        openStreams -= 1
                    } else if isError {
                        errorOutput.append(chunk)
                    } else {
                        output.append(chunk)
                    }
                    state.broadcast()
                    state.unlock()
                    if chunk.isEmpty { return }
                }
            }
            thread.name = "LaunchedProcess output"
            thread.start()
        }
        let waiter = Thread { [self] in
            process.waitUntilExit()
            state.lock()
            exited = true
            state.broadcast()
            state.unlock()
        }
        waiter.start()
    }

    /// The standard output so far, as lines (an unfinished last line excluded).
    public var outputLines: [String] {
        state.lock()
        defer { state.unlock() }
        return Self.lines(output)
    }

    /// The standard error so far.
    public var standardError: String {
        state.lock()
        defer { state.unlock() }
        return String(decoding: errorOutput, as: UTF8.self)
    }

    /// Waits until a complete output line satisfies `predicate` and returns it;
    /// nil when the process ends or `timeout` seconds pass first.
    public func waitForLine(timeout: TimeInterval, where predicate: (String) -> Bool) -> String? {
        waitForOutput(timeout: timeout, stream: \.output, where: predicate)
    }

    /// Waits until a complete line of standard error satisfies `predicate`.
    public func waitForErrorLine(timeout: TimeInterval, where predicate: (String) -> Bool) -> String? {
        waitForOutput(timeout: timeout, stream: \.errorOutput, where: predicate)
    }

    private func waitForOutput(timeout: TimeInterval, stream: KeyPath<LaunchedProcess, Data>, where predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        state.lock()
        defer { state.unlock() }
        while true {
            if let line = Self.lines(self[keyPath: stream]).first(where: predicate) { return line }
            if exited && openStreams == 0 { return nil }
            if !state.wait(until: deadline) { return Self.lines(self[keyPath: stream]).first(where: predicate) }
        }
    }

    /// Sends `signal` (SIGKILL by default) to the process.
    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Foundation.kill(processIdentifier, signal)
    }

    /// Waits for the process to end and its output to be read; after `timeout`
    /// seconds it is killed with SIGKILL and the outcome says ``ProcessOutcome/timedOut``.
    public func wait(timeout: TimeInterval = 60) -> ProcessOutcome {
        let deadline = Date().addingTimeInterval(timeout)
        state.lock()
        while !(exited && openStreams == 0) {
            if !state.wait(until: deadline) && !exited {
                killedAtTimeout = true
                _ = Foundation.kill(processIdentifier, SIGKILL)
                // After SIGKILL the end is near; wait without a deadline.
                while !(exited && openStreams == 0) { state.wait() }
                break
            }
        }
        let out = String(decoding: output, as: UTF8.self)
        let err = String(decoding: errorOutput, as: UTF8.self)
        let timedOut = killedAtTimeout
        state.unlock()
        let bySignal = process.terminationReason == .uncaughtSignal
        return ProcessOutcome(status: process.terminationStatus, signal: bySignal ? process.terminationStatus : nil,
                              timedOut: timedOut, standardOutput: out, standardError: err)
    }

    private static func lines(_ data: Data) -> [String] {
        var parts = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast() // the unfinished part after the last newline ("" when complete)
        return parts
    }
}
