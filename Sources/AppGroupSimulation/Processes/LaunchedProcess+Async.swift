import Foundation

/// An async wait on a ``LaunchedProcess``: the condition it waits for (read under
/// the process's lock) and the continuation to resume when it holds.
enum SuspendedWait {
    /// Allocated; the continuation is not registered yet.
    case starting
    /// Cancelled (or past its deadline) before the continuation was registered.
    case endedEarly
    /// Waiting for `isDone`.
    case waiting(isDone: (LaunchedProcess) -> Bool, continuation: CheckedContinuation<Void, Never>)
}

// The asynchronous waits. They suspend on a continuation that the process's own
// reader and waiter threads resume when the state changes (or a timer does at the
// deadline), so no thread is blocked while they wait, least of all one of Swift's
// cooperative pool.
extension LaunchedProcess {
    /// Waits, suspending, for the process to end and its output to be read; after
    /// `timeout` seconds it is killed with SIGKILL and the outcome says
    /// ``ProcessOutcome/timedOut``. The asynchronous form of ``wait(timeout:)``
    /// (the same rules), which never blocks a thread. Cancelling the waiting task
    /// kills the process (SIGKILL) and returns once it has ended.
    @discardableResult
    public func outcome(timeout: TimeInterval = 60) async -> ProcessOutcome {
        // The kill at the deadline, and the note that it was the deadline's, happen
        // on the deadline clock's own thread: a task resumed to do them would wait
        // for a thread of the cooperative pool, which busy tests can hold for
        // minutes, while the process runs on past its deadline.
        let deadline = DeadlineClock.shared.schedule(after: WaitTimeout.clamped(timeout)) { [weak self] in
            self?.killUnlessEnded(atTimeout: true)
        }
        defer { DeadlineClock.shared.cancel(deadline) }
        await withTaskCancellationHandler {
            // An outcome exists only once the process has ended: this wait ignores
            // cancellation (the handler below kills, and after SIGKILL the end is near).
            await suspend(timeout: nil, cancellable: false) { $0.exited }
        } onCancel: {
            killUnlessEnded(atTimeout: false)
        }
        await suspend(timeout: 10, cancellable: false) { $0.openStreams == 0 }
        return endedOutcome()
    }

    /// The asynchronous form of ``waitForLine(timeout:where:)``: the first complete
    /// output line that satisfies `predicate`; nil when the process closes its
    /// output or `timeout` seconds pass first.
    @discardableResult
    public func line(timeout: TimeInterval = 30, where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await find(OutputSearch(line: predicate), in: \.output, timeout: timeout)
    }

    /// The asynchronous form of ``waitForLine(_:timeout:)``: true once standard
    /// output holds the complete line `line`.
    @discardableResult
    public func line(_ line: String, timeout: TimeInterval = 30) async -> Bool {
        await self.line(timeout: timeout, where: { $0 == line }) != nil
    }

    /// The asynchronous form of ``waitForOutput(containing:timeout:)``: true once
    /// standard output contains `text` anywhere.
    @discardableResult
    public func output(containing text: String, timeout: TimeInterval = 30) async -> Bool {
        await find(OutputSearch(text: text), in: \.output, timeout: timeout) != nil
    }

    /// The asynchronous form of ``waitForErrorLine(timeout:where:)``.
    @discardableResult
    public func errorLine(timeout: TimeInterval = 30, where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await find(OutputSearch(line: predicate), in: \.errorOutput, timeout: timeout)
    }

    /// Suspends until `search` finds its target in `stream`, the process closes its
    /// output, or `timeout` passes; one search for the whole wait, so each chunk is
    /// looked at once.
    private func find(_ search: OutputSearch, in stream: KeyPath<LaunchedProcess, Data>, timeout: TimeInterval) async -> String? {
        await suspend(timeout: timeout) { process in
            process.openStreams == 0 || search.next(in: process[keyPath: stream]) != nil
        }
        return locked { search.next(in: $0[keyPath: stream]) }
    }

    /// Waits for the complete output line `line`, or throws.
    /// - Throws: ``SimulationError/processFailed(_:)`` (``ProcessFailure/Reason/outputNotSeen(expected:timeout:outputSoFar:)``)
    ///   naming the process, its target and identity, the device, and what it printed,
    ///   when the line does not come within `timeout` seconds; the device is marked failed.
    public func requireLine(_ line: String, timeout: TimeInterval = 30) async throws {
        guard await self.line(line, timeout: timeout) else {
            let (out, err) = locked { (String(decoding: $0.output, as: UTF8.self), String(decoding: $0.errorOutput, as: UTF8.self)) }
            let failure = ProcessFailure(reason: .outputNotSeen(expected: "the line \"\(line)\"", timeout: timeout, outputSoFar: out),
                                         label: label, standardError: err)
            LiveDevices.recordFailure(failure.description, onDeviceAt: label.deviceDirectory)
            throw SimulationError.processFailed(failure)
        }
    }

    /// The asynchronous form of ``run(_:_:environment:timeout:)``: runs a helper
    /// tool to its end without blocking a thread.
    public static func run(_ executable: URL, _ arguments: [String],
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           timeout: TimeInterval = 60,
                           isolation: isolated (any Actor)? = #isolation) async throws -> ProcessOutcome {
        try await LaunchedProcess(executable: executable, arguments: arguments, environment: environment).outcome(timeout: timeout)
    }

    // MARK: The machinery

    /// The wait for the end is over (its deadline passed, or its task was
    /// cancelled): kill the process unless it has ended meanwhile.
    private func killUnlessEnded(atTimeout: Bool) {
        state.lock()
        defer { state.unlock() }
        if !exited {
            if atTimeout { killedAtTimeout = true }
            _ = Foundation.kill(processIdentifier, SIGKILL)
        }
    }

    /// How many async waits are suspended on this process now (for tests that
    /// must know a wait has begun before they act).
    package var suspendedWaitCount: Int {
        locked { process in process.suspended.values.count { if case .waiting = $0 { true } else { false } } }
    }

    private func locked<R>(_ read: (LaunchedProcess) -> R) -> R {
        state.lock()
        defer { state.unlock() }
        return read(self)
    }

    /// Called with `state` locked after the state changed: wakes the blocking
    /// waiters, unlocks, then resumes the async waits whose condition now holds.
    func unlockAfterChange() {
        state.broadcast()
        var ready: [CheckedContinuation<Void, Never>] = []
        for (id, wait) in suspended {
            if case .waiting(let isDone, let continuation) = wait, isDone(self) {
                suspended[id] = nil
                ready.append(continuation)
            }
        }
        state.unlock()
        for continuation in ready { continuation.resume() }
    }

    /// Suspends until `isDone` holds (read under the lock), `timeout` seconds pass
    /// (nil: no deadline) or, when `cancellable`, the task is cancelled. The caller
    /// reads the state afterwards.
    func suspend(timeout: TimeInterval?, cancellable: Bool = true, until isDone: @escaping (LaunchedProcess) -> Bool) async {
        let id = locked { process -> UInt64 in
            process.nextWait += 1
            process.suspended[process.nextWait] = .starting
            return process.nextWait
        }
        // Scheduled before the continuation is registered: a deadline that comes
        // first marks the wait ended early, and the registration sees it.
        let deadline = timeout.map { timeout in
            DeadlineClock.shared.schedule(after: WaitTimeout.clamped(timeout)) { [weak self] in self?.end(id) }
        }
        defer { if let deadline { DeadlineClock.shared.cancel(deadline) } }
        guard cancellable else { return await register(id, isDone) }
        await withTaskCancellationHandler {
            await register(id, isDone)
        } onCancel: {
            end(id)
        }
    }

    private func register(_ id: UInt64, _ isDone: @escaping (LaunchedProcess) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.lock()
            if isDone(self) || suspended[id].map({ if case .endedEarly = $0 { true } else { false } }) == true {
                suspended[id] = nil
                state.unlock()
                continuation.resume()
                return
            }
            suspended[id] = .waiting(isDone: isDone, continuation: continuation)
            state.unlock()
        }
    }

    /// Resumes the async wait `id` now (its deadline passed, or its task was cancelled).
    private func end(_ id: UInt64) {
        state.lock()
        var resume: CheckedContinuation<Void, Never>?
        switch suspended[id] {
        case .starting: suspended[id] = .endedEarly
        case .waiting(_, let continuation):
            suspended[id] = nil
            resume = continuation
        case .endedEarly, nil: break // already ended, or never started
        }
        state.unlock()
        resume?.resume()
    }
}
