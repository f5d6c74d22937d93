import AppGroupContainer
import AppGroupSystem
import Foundation

/// A running child process whose standard output and error are collected as they
/// arrive: a test can wait for a line, signal the process, then wait for its
/// ``ProcessOutcome``. Start one with ``SimulatedDevice/launch(_:_:as:environment:)``
/// (as a target of a device) or with an explicit environment:
///
/// ```swift
/// let holder = try LaunchedProcess(built: "ReliabilityProbe", arguments: ["hold", "--file", path],
///                                  environment: ProcessInfo.processInfo.environment)
/// #expect(await holder.output(containing: "locked", timeout: 60))
/// holder.kill()                              // SIGKILL
/// let end = await holder.outcome(timeout: 30)
/// #expect(end.signal == SIGKILL)
/// ```
///
/// Every wait has two forms: a synchronous one (`wait`, `waitForLine`,
/// `waitForOutput`, `waitForErrorLine`) that blocks the calling thread, for
/// synchronous tests; and an asynchronous one (`outcome`, `line`, `output`,
/// `errorLine`, `requireLine`) that suspends without holding a thread, for async
/// tests. Use the asynchronous forms in async code: a blocked thread of Swift's
/// cooperative pool (as small as the machine's cores) is one fewer for every
/// other task, and a few blocked at once stall the whole test run.
///
/// A line ends at LF; a CR just before it belongs to the ending, so a child that
/// writes CRLF gives the same lines. A timeout that is NaN or negative waits not
/// at all; one over a year (`.infinity` too) waits a year.
public final class LaunchedProcess: @unchecked Sendable {
    // @unchecked: `process` is only read after `exited` is set under `state`'s
    // lock; every other stored property is immutable or guarded by `state`.
    /// Foundation's process object; nil for a child started by the sandbox's own
    /// spawn (SimulatedDevice+Sandbox.swift), which this object reaps itself.
    private let process: Process?
    let state = NSCondition()
    var output = Data()
    var errorOutput = Data()
    /// Whether some of each stream was dropped past ``outputLimit`` (said once each).
    var droppedOutput = false
    var droppedError = false
    var openStreams = 2
    var exited = false
    /// How the process ended, when learned without Foundation (see the waiter thread).
    var childExit: ChildExit?
    var killedAtTimeout = false
    /// Async waits in progress (see LaunchedProcess+Async.swift), resumed on changes.
    var suspended: [UInt64: SuspendedWait] = [:]
    var nextWait: UInt64 = 0
    let label: ProcessLabel

    /// The child's process id.
    public let processIdentifier: Int32
    /// The executable that was started.
    public let executable: URL
    /// The arguments it was started with (for messages).
    public let arguments: [String]
    /// The target it runs as (nil when started with an explicit environment or no identity).
    public var target: SimulatedTarget? { label.target }
    /// The directory of the device it runs on, if it was launched by one.
    public var deviceDirectory: URL? { label.deviceDirectory }

    /// Starts `executable` with exactly `environment` (see
    /// ``SimulatedDevice/environment(for:extra:)`` for a target's). Standard input
    /// is `/dev/null`.
    public convenience init(executable: URL, arguments: [String], environment: [String: String]) throws {
        try self.init(executable: executable, arguments: arguments, environment: environment,
                      label: ProcessLabel(executable: executable, arguments: arguments, explicitEnvironment: true))
    }

    convenience init(executable: URL, arguments: [String], environment: [String: String], label: ProcessLabel) throws {
        try self.init(executable: executable, arguments: arguments, label: label) { out, err in
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = out
            process.standardError = err
            try process.run()
            return (process.processIdentifier, process)
        }
    }

    /// Starts the child with `start`, which receives the pipes for its standard
    /// output and error and returns its pid, and Foundation's process object when
    /// Foundation started it (nil: this object reaps the child).
    init(executable: URL, arguments: [String], label: ProcessLabel,
         start: (_ output: Pipe, _ error: Pipe) throws -> (pid: Int32, process: Process?)) throws {
        self.executable = executable
        self.arguments = arguments
        self.label = label
        let out = Pipe()
        let err = Pipe()
        let traced = Tracing.begin(.process)
        // Shared with the other spawns, never with the writing of an executable (see SpawnGate).
        let started = try SpawnGate.spawning { try start(out, err) }
        process = started.process
        processIdentifier = started.pid
        ExploringSchedulers.launched(started.pid, name: label.target?.name ?? executable.lastPathComponent, device: label.deviceDirectory)
        if started.process == nil {
            // Foundation closes its copies of the write ends after it spawns; here
            // that is this object's job, or the readers would never see the end.
            try? out.fileHandleForWriting.close()
            try? err.fileHandleForWriting.close()
        }
        // Threads of their own (not the cooperative pool) read the pipes and wait
        // for the end, so that no wait ever needs a pool thread to make progress.
        for (pipe, isError) in [(out, false), (err, true)] {
            let handle = pipe.fileHandleForReading
            let thread = Thread { [self] in
                // Named from inside, for the kernel (Foundation's Thread.name does not always reach it on Linux).
                ThreadName.setCurrent(isError ? "process stderr" : "process stdout")
                while true {
                    let chunk = handle.availableData
                    state.lock()
                    var dropped = false
                    if chunk.isEmpty {
                        openStreams -= 1
                    } else if isError {
                        if Self.keep(chunk, in: &errorOutput) { dropped = !droppedError; droppedError = true }
                    } else {
                        if Self.keep(chunk, in: &output) { dropped = !droppedOutput; droppedOutput = true }
                    }
                    unlockAfterChange()
                    if dropped { noteDroppedOutput(isError ? "standard error" : "standard output") }
                    if chunk.isEmpty {
                        // Closed at once rather than when the process object goes: a
                        // test run starts thousands of processes, and every descriptor
                        // left open is one more that each later spawn must close.
                        try? handle.close()
                        return
                    }
                }
            }
            thread.start()
        }
        let waiter = Thread { [self] in
            ThreadName.setCurrent("process end")
            // waitid without reaping: Foundation's own notice of the end comes
            // from Dispatch queues that busy tests can starve for minutes.
            let end = ChildExit.wait(forChild: processIdentifier)
            if end == nil { process?.waitUntilExit() }
            state.lock()
            childExit = end
            exited = true
            unlockAfterChange()
            traced?.end(label.target?.name ?? executable.lastPathComponent, traceArguments(end))
            // Reaped only now: until `exited` was set, `kill` could still signal the pid.
            if process == nil { SandboxSystemCalls.reap(processIdentifier) }
        }
        waiter.start()
    }

    /// How much of each of a child's streams is kept: what a target writes is read
    /// to its end (so it never blocks on a full pipe) but held only up to this.
    static let outputLimit = 64 << 20

    /// Appends what fits of `chunk` under ``outputLimit``; true when some was dropped.
    private static func keep(_ chunk: Data, in stream: inout Data) -> Bool {
        let room = max(0, outputLimit - stream.count)
        if room > 0 { stream.append(chunk.prefix(room)) }
        return chunk.count > room
    }

    private func noteDroppedOutput(_ stream: String) {
        let who = label.target.map { "\($0.name) [\(processIdentifier)]" } ?? "\(executable.lastPathComponent) [\(processIdentifier)]"
        FileHandle.standardError.write(Data("AppGroupTesting: \(who) wrote more than \(Self.outputLimit) bytes to its \(stream); the first \(Self.outputLimit) are kept, the rest is read and dropped\n".utf8))
    }

    /// What the trace says of this process's run (in the launching process's track).
    private func traceArguments(_ end: ChildExit?) -> [(String, String)] {
        var args = [("pid", "\(processIdentifier)"), ("executable", executable.path)]
        if let device = label.deviceDirectory { args.append(("device", device.path)) }
        if let end {
            args.append(("ended", end.killedBySignal ? "signal \(end.status)" : "exit status \(end.status)"))
        }
        return args
    }

    /// Starts the executable product `name` built beside the test bundle (see
    /// ``SimulatedDevice/builtExecutable(named:)``) with exactly `environment`.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` when it is not built.
    public convenience init(built name: String, arguments: [String], environment: [String: String]) throws {
        try self.init(executable: SimulatedDevice.requireBuiltExecutable(named: name), arguments: arguments, environment: environment)
    }

    /// Runs `executable` to its end and returns how it ended; it is killed
    /// (SIGKILL) after `timeout` seconds. For a helper tool such as `python3`
    /// or `chown`; use ``SimulatedDevice/spawn(_:_:as:environment:timeout:)``
    /// to run a program as a target of a device. Blocks the calling thread:
    /// in async code use ``run(_:_:environment:timeout:isolation:)``.
    /// - Parameters:
    ///   - executable: the program to run.
    ///   - arguments: its arguments.
    ///   - environment: exactly the child's environment (this process's by default).
    ///   - timeout: seconds before it is killed (SIGKILL).
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
    /// Blocks the calling thread: in async code use ``line(timeout:where:)``.
    @discardableResult
    public func waitForLine(timeout: TimeInterval = 30, where predicate: (String) -> Bool) -> String? {
        withoutActuallyEscaping(predicate) { predicate in
            waitForOutput(timeout: timeout, stream: \.output, search: OutputSearch(line: predicate))
        }
    }

    /// Waits until standard output holds the complete line `line`; false when the
    /// process closes its output or `timeout` seconds pass first.
    /// Blocks the calling thread: in async code use ``line(_:timeout:)``.
    @discardableResult
    public func waitForLine(_ line: String, timeout: TimeInterval = 30) -> Bool {
        waitForLine(timeout: timeout, where: { $0 == line }) != nil
    }

    /// Waits until standard output contains `text` anywhere (a line need not be
    /// finished); false when the process closes its output or `timeout` seconds pass first.
    /// Blocks the calling thread: in async code use ``output(containing:timeout:)``.
    public func waitForOutput(containing text: String, timeout: TimeInterval = 30) -> Bool {
        waitForOutput(timeout: timeout, stream: \.output, search: OutputSearch(text: text)) != nil
    }

    /// Waits until a complete line of standard error satisfies `predicate`.
    /// Blocks the calling thread: in async code use ``errorLine(timeout:where:)``.
    @discardableResult
    public func waitForErrorLine(timeout: TimeInterval = 30, where predicate: (String) -> Bool) -> String? {
        withoutActuallyEscaping(predicate) { predicate in
            waitForOutput(timeout: timeout, stream: \.errorOutput, search: OutputSearch(line: predicate))
        }
    }

    private func waitForOutput(timeout: TimeInterval, stream: KeyPath<LaunchedProcess, Data>,
                               search: OutputSearch) -> String? {
        let deadline = WaitTimeout.deadline(timeout)
        state.lock()
        defer { state.unlock() }
        while true {
            if let found = search.next(in: self[keyPath: stream]) { return found }
            if openStreams == 0 { return nil }
            if !state.wait(until: deadline) { return search.next(in: self[keyPath: stream]) }
        }
    }

    /// Sends `signal` (SIGKILL by default) to the process if it has not ended yet
    /// (an ended one's id may already belong to another process).
    public func kill(_ signal: Int32 = SIGKILL) {
        state.lock()
        defer { state.unlock() }
        if !exited { _ = Foundation.kill(processIdentifier, signal) }
    }

    /// Waits until the process has ended (not its output), at most until
    /// `deadline`; true when it has.
    func waitForEnd(until deadline: Date) -> Bool {
        state.lock()
        defer { state.unlock() }
        while !exited {
            if !state.wait(until: deadline) { return exited }
        }
        return true
    }

    /// Whether the process has ended (its end learned; see the waiter thread).
    var hasEnded: Bool {
        state.lock()
        defer { state.unlock() }
        return exited
    }

    /// Whether this object reaps the child itself (started by the sandbox's
    /// spawn), rather than Foundation's `Process`.
    var reapsItself: Bool { process == nil }

    /// Waits for the process to end and its output to be read; after `timeout`
    /// seconds it is killed with SIGKILL and the outcome says ``ProcessOutcome/timedOut``.
    /// Output still held open after the end by a process it started is waited
    /// for at most 10 more seconds. Safe to call again.
    /// Blocks the calling thread: in async code use ``outcome(timeout:)``.
    @discardableResult
    public func wait(timeout: TimeInterval = 60) -> ProcessOutcome {
        var deadline = WaitTimeout.deadline(timeout)
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
        state.unlock()
        return endedOutcome()
    }

    /// The outcome of the ended process, with the output read so far.
    func endedOutcome() -> ProcessOutcome {
        state.lock()
        let out = String(decoding: output, as: UTF8.self)
        let err = String(decoding: errorOutput, as: UTF8.self)
        let timedOut = killedAtTimeout
        let end = childExit
        state.unlock()
        let status = end?.status ?? process?.terminationStatus ?? -1
        let bySignal = end?.killedBySignal ?? (process?.terminationReason == .uncaughtSignal)
        // Timed out only if the deadline's SIGKILL is what ended it: a process that
        // exited on its own just before the kill reached it reports its own end.
        return ProcessOutcome(status: status, signal: bySignal ? status : nil,
                              timedOut: timedOut && bySignal && status == SIGKILL,
                              standardOutput: out, standardError: err, label: label,
                              foundationSuiteNotes: label.foundationSuites?.findings() ?? [])
    }

    static func lines(_ data: Data) -> [String] { OutputLines.complete(data) }
}
