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

/// The executable a test asked for by name is not among the built products.
public struct ExecutableNotBuilt: Error, CustomStringConvertible, Sendable {
    /// The product name that was looked for.
    public let name: String
    public var description: String {
        "\(name) was not found beside the test bundle (.build/<configuration>/\(name)): build it first with `swift build --build-tests`"
    }
}

/// A running child process whose standard output and error are collected as they
/// arrive: a test can wait for a line, signal the process, then wait for its
/// ``ProcessOutcome``. Start one with ``SimulatedDevice/launch(_:_:as:environment:)``
/// (as a target of a device) or with an explicit environment:
///
/// ```swift
/// let holder = try LaunchedProcess(built: "ReliabilityProbe", arguments: ["hold", "--file", path],
///                                  environment: ProcessInfo.processInfo.environment)
/// #expect(holder.waitForOutput(containing: "locked", timeout: 60))
/// holder.kill()                              // SIGKILL
/// let end = holder.wait(timeout: 30)
/// #expect(end.signal == SIGKILL)
/// ```
public final class LaunchedProcess: @unchecked Sendable {
    // @unchecked: `process` is only read after `exited` is set under `state`'s
    // lock; every other stored property is immutable or guarded by `state`.
    private let process: Process
    private let state = NSCondition()
    private var output = Data()
    private var errorOutput = Data()
    private var openStreams = 2
    private var exited = false
    private var killedAtTimeout = false

    /// The child's process id.
    public let processIdentifier: Int32
    /// The executable that was started.
    public let executable: URL
    /// The arguments it was started with (for messages).
    public let arguments: [String]

    /// Starts `executable` with exactly `environment` (see
    /// ``SimulatedDevice/environment(for:extra:)`` for a target's). Standard input
    /// is `/dev/null`.
    public init(executable: URL, arguments: [String], environment: [String: String]) throws {
        self.executable = executable
        self.arguments = arguments
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

    /// Starts the executable product `name` built beside the test bundle (see
    /// ``SimulatedDevice/builtExecutable(named:)``) with exactly `environment`.
    /// - Throws: ``ExecutableNotBuilt`` when it is not built.
    public convenience init(built name: String, arguments: [String], environment: [String: String]) throws {
        try self.init(executable: SimulatedDevice.requireBuiltExecutable(named: name), arguments: arguments, environment: environment)
    }

    /// Runs `executable` to its end and returns how it ended; it is killed
    /// (SIGKILL) after `timeout` seconds. For a helper tool such as `python3`
    /// or `chown`; use ``SimulatedDevice/spawn(_:_:as:environment:timeout:)``
    /// to run a program as a target of a device.
    /// - Parameter environment: exactly the child's environment (this process's by default).
    public static func run(_ executable: URL, _ arguments: [String],
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           timeout: TimeInterval = 60) throws -> ProcessOutcome {
        try LaunchedProcess(executable: executable, arguments: arguments, environment: environment).wait(timeout: timeout)
    }

    /// The standard output so far.
    public var standardOutput: String {
        state.lock()
        defer { state.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// The standard error so far.
    public var standardError: String {
        state.lock()
        defer { state.unlock() }
        return String(decoding: errorOutput, as: UTF8.self)
    }

    /// The non-empty complete lines of standard output so far (an unfinished last
    /// line excluded), like ``ProcessOutcome/outputLines``.
    public var outputLines: [String] {
        state.lock()
        defer { state.unlock() }
        return Self.lines(output).filter { !$0.isEmpty }
    }

    /// Waits until a complete output line satisfies `predicate` and returns it;
    /// nil when the process closes its output or `timeout` seconds pass first.
    @discardableResult
    public func waitForLine(timeout: TimeInterval = 30, where predicate: (String) -> Bool) -> String? {
        waitForOutput(timeout: timeout, stream: \.output) { data in Self.lines(data).first(where: predicate) }
    }

    /// Waits until standard output holds the complete line `line`; false when the
    /// process closes its output or `timeout` seconds pass first.
    @discardableResult
    public func waitForLine(_ line: String, timeout: TimeInterval = 30) -> Bool {
        waitForLine(timeout: timeout, where: { $0 == line }) != nil
    }

    /// Waits until standard output contains `text` anywhere (a line need not be
    /// finished); false when the process closes its output or `timeout` seconds pass first.
    public func waitForOutput(containing text: String, timeout: TimeInterval = 30) -> Bool {
        let needle = Data(text.utf8)
        return waitForOutput(timeout: timeout, stream: \.output) { data in data.range(of: needle) == nil ? nil : text } != nil
    }

    /// Waits until a complete line of standard error satisfies `predicate`.
    @discardableResult
    public func waitForErrorLine(timeout: TimeInterval = 30, where predicate: (String) -> Bool) -> String? {
        waitForOutput(timeout: timeout, stream: \.errorOutput) { data in Self.lines(data).first(where: predicate) }
    }

    private func waitForOutput(timeout: TimeInterval, stream: KeyPath<LaunchedProcess, Data>,
                               find: (Data) -> String?) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        state.lock()
        defer { state.unlock() }
        while true {
            if let found = find(self[keyPath: stream]) { return found }
            if openStreams == 0 { return nil }
            if !state.wait(until: deadline) { return find(self[keyPath: stream]) }
        }
    }

    /// Sends `signal` (SIGKILL by default) to the process if it has not ended yet
    /// (an ended one's id may already belong to another process).
    public func kill(_ signal: Int32 = SIGKILL) {
        state.lock()
        defer { state.unlock() }
        if !exited { _ = Foundation.kill(processIdentifier, signal) }
    }

    /// Waits for the process to end and its output to be read; after `timeout`
    /// seconds it is killed with SIGKILL and the outcome says ``ProcessOutcome/timedOut``.
    /// Output still held open after the end by a process it started is waited
    /// for at most 10 more seconds. Safe to call again.
    @discardableResult
    public func wait(timeout: TimeInterval = 60) -> ProcessOutcome {
        var deadline = Date().addingTimeInterval(timeout)
        state.lock()
        while !exited {
            if !state.wait(until: deadline) && !exited {
                killedAtTimeout = true
                _ = Foundation.kill(processIdentifier, SIGKILL)
                // After SIGKILL the end is near; wait without a deadline.
                while !exited { state.wait() }
            }
        }
        deadline = max(deadline, Date().addingTimeInterval(10))
        while openStreams > 0 && state.wait(until: deadline) {}
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
