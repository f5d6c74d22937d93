import AppGroupSystem
import Foundation

/// The device's end of one target process's lifecycle channel (the target's end
/// is CAppGroupSys's lifecycle.c): a socket pair made at launch, whose other end
/// is the target's descriptor 3. A thread of its own reads the target's lines
/// (`hello`, `ack`, `begin`/`end` of background activities) and, when the stream
/// ends (the process ended: the kernel closes its end), records the termination.
final class LifecycleConnection: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `condition`.
    let condition = NSCondition()
    let fd: Int32
    let target: SimulatedTarget
    let home: String
    /// The device's container root: the one whose records the target's requests concern.
    let deviceRoot: URL
    /// Held around every write to the channel: requests are answered from threads of
    /// their own while the device posts notifications, and lines must not mix.
    let sendLock = NSLock()
    /// Set, under `sendLock`, when the device's end is closed: its number may be reused.
    var descriptorClosed = false
    /// Requests of the target being answered (guarded by `condition`).
    var requestsInFlight = 0
    private(set) var pid: Int32 = 0
    var processObject: LaunchedProcess?
    private weak var records: DeviceLifecycle?
    var state: LifecycleState = .foreground
    var listening = false
    /// Set once the grace passed without a hello: the target is never waited for again.
    var silent = false
    var acknowledged: Set<Int> = []
    var nextSequence = 1
    /// Background activities running in the target: id, reason, when they began.
    var activities: [Int: (reason: String, began: Date)] = [:]
    /// The trace's records of the activities under way (tracing on only).
    var tracedActivities: [Int: Tracing.Span] = [:]
    /// Background tasks the test took (negative ids): their expiration handlers run in the test's process.
    var testExpirationHandlers: [Int: @Sendable () -> Void] = [:]
    var nextTestTask = 0
    /// The ending the device itself caused, set before it sends the signal.
    var causedEnd: (reason: TerminationReason, locks: [HeldFileLock], state: LifecycleState)?
    var report: TerminationReport?
    /// The cgroup enforcing its memory limit, when the cgroup v2 path is used.
    var cgroup: (group: MemoryCgroup, limit: Int)?
    var streamEnded = false
    /// The device the target's asks go to (LifecycleConnection+Asks.swift).
    weak var device: SimulatedDevice?

    init(fd: Int32, target: SimulatedTarget, home: String, deviceRoot: URL) {
        self.fd = fd
        self.target = target
        self.home = home
        self.deviceRoot = deviceRoot
    }

    /// Starts reading once the process exists.
    func attach(_ process: LaunchedProcess, records: DeviceLifecycle) {
        condition.lock()
        self.pid = process.processIdentifier
        self.processObject = process
        self.records = records
        condition.unlock()
        let thread = Thread { [self] in
            ThreadName.setCurrent("lifecycle")
            readLines()
        }
        thread.start()
    }

    private func readLines() {
        var lines = ChannelLines()
        while true {
            let chunk = ProcessSystemCalls.readSome(fd)
            if chunk.isEmpty { break }
            lines.append(chunk) { piece in
                switch piece {
                case .line(let line): handle(line)
                case .oversized(let bytes): refuse(oversized: bytes)
                }
            }
        }
        condition.lock()
        streamEnded = true
        condition.broadcast()
        condition.unlock()
        recordEnd()
        closeDescriptorOnce()
    }

    /// A line past ``ChannelLines/limit`` was dropped: the device's failure, named
    /// for the target, so that the test sees what its target did.
    private func refuse(oversized bytes: Int) {
        let error = LifecycleError(problem: .oversizedMessage(bytes: bytes, limit: ChannelLines.limit),
                                   request: "read the lifecycle channel", state: nil, process: processDescription)
        condition.lock()
        let records = self.records
        condition.unlock()
        records?.refused(error)
    }

    private func handle(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard let command = parts.first else { return }
        if command == "ask" { return answer(line) }
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        switch command {
        case "hello": listening = true
        case "ack": if parts.count > 1, let sequence = Int(parts[1]) { acknowledged.insert(sequence) }
        case "begin":
            if parts.count > 1, let id = Int(parts[1]) {
                activities[id] = (parts.count > 2 ? parts[2] : "", Date())
                traceActivityBegan(id)
            }
        case "end":
            if parts.count > 1, let id = Int(parts[1]), let ended = activities.removeValue(forKey: id) {
                traceActivityEnded(id, reason: ended.reason, how: "by the target")
            }
        case "request":
            if parts.count > 2, let id = Int(parts[1]) { answerLater(id, parts[2]) }
        default: break
        }
    }

    /// Waits (at most an hour: the stream ends when the process does) for the
    /// process's end, then records the report the device will show.
    private func recordEnd() {
        guard let process = processObject else { return }
        let deadline = Date().addingTimeInterval(3600)
        process.state.lock()
        while !process.exited && process.state.wait(until: deadline) {}
        // Its last lines of standard error may still be in the pipe: read them
        // (at most 10 s more, for a child that keeps the pipe open), as `wait` does.
        let drained = Date().addingTimeInterval(10)
        while process.exited && process.openStreams > 0 && process.state.wait(until: drained) {}
        let exited = process.exited
        process.state.unlock()
        guard exited else { return }
        let outcome = process.endedOutcome()
        condition.lock()
        let caused = causedEnd
        let before = state
        state = .ended
        condition.unlock()
        var reason = caused?.reason ?? (outcome.signal.map { TerminationReason.crash(signal: $0) } ?? .exit(status: outcome.status))
        if let (group, limit) = cgroup {
            // The kernel killed it at memory.max: jetsam's per-process limit.
            if caused == nil, outcome.signal == SIGKILL, group.killedAtLimit {
                reason = .memoryLimit(limit: limit, footprint: group.peak ?? limit)
            }
            group.remove()
        }
        let tail = outcome.standardError.split(separator: "\n", omittingEmptySubsequences: true).suffix(10).map(String.init)
        let report = TerminationReport(target: target, processIdentifier: pid, reason: reason, state: caused?.state ?? before,
                                       heldLocks: caused?.locks ?? [], allowedDirectories: reason == .heldLockWhileSuspended ? [home, home + "/tmp"] : [],
                                       standardErrorTail: tail, date: Date())
        traceEnd(report)
        records?.append(report)
        condition.lock()
        self.report = report
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Requests (called with the condition unlocked)

    var processDescription: String {
        "\(target.name) [\(pid)]"
    }

    /// Whether the target listens: true once it said hello; false after `grace`
    /// seconds without (a program that does not link the package, such as python3).
    func waitForListener(grace: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(grace)
        condition.lock()
        defer { condition.unlock() }
        while !listening && !silent && !streamEnded && condition.wait(until: deadline) {}
        if !listening { silent = true }
        return listening
    }

    /// Posts `name` inside the target and waits for its acknowledgement.
    func post(_ name: String, request: String, timeout: TimeInterval, grace: TimeInterval) throws(LifecycleError) {
        try send("post", name, request: request, timeout: timeout, grace: grace, naming: name)
    }

    /// Sends one line and waits for its acknowledgement (nothing when the target does not listen).
    func send(_ command: String, _ argument: String, request: String, timeout: TimeInterval, grace: TimeInterval,
              naming: String) throws(LifecycleError) {
        guard waitForListener(grace: grace) else { return }
        condition.lock()
        let sequence = nextSequence
        nextSequence += 1
        condition.unlock()
        do {
            try sendLine("\(sequence) \(command) \(argument)")
        } catch {
            throw LifecycleError(problem: .ended, request: request, state: .ended, process: processDescription)
        }
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !acknowledged.contains(sequence) {
            if streamEnded { throw LifecycleError(problem: .ended, request: request, state: .ended, process: processDescription) }
            if !condition.wait(until: deadline) && !acknowledged.contains(sequence) {
                throw LifecycleError(problem: .noAcknowledgement(notification: naming, seconds: timeout), request: request,
                                     state: state, process: processDescription)
            }
        }
    }

    /// Waits for the report of the process's end (nil after `timeout`).
    func waitForReport(timeout: TimeInterval) -> TerminationReport? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while report == nil && condition.wait(until: deadline) {}
        return report
    }
}

/// The environment variable that names the channel's descriptor in a target.
enum LifecycleChannelKey {
    static let environment = "APPGROUP_LIFECYCLE_FD"
}

extension LifecycleConnection {
    var streamEndedNow: Bool {
        condition.lock()
        defer { condition.unlock() }
        return streamEnded
    }

    /// Kills the process (SIGKILL) for `reason`, unless it has ended; the report
    /// follows from the reader thread. False when it had ended already.
    @discardableResult
    func kill(reason: TerminationReason, locks: [HeldFileLock]) -> Bool {
        condition.lock()
        guard causedEnd == nil, let process = processObject else { condition.unlock(); return false }
        causedEnd = (reason, locks, state)
        condition.unlock()
        process.state.lock()
        defer { process.state.unlock() }
        guard !process.exited else { return false }
        try? ProcessSystemCalls.send(SIGKILL, to: process.processIdentifier)
        return true
    }

    /// Closes the device's end when the process never started.
    func close() { closeDescriptorOnce() }

    /// Closes the device's end, once, never while a line is being written to it.
    func closeDescriptorOnce() {
        sendLock.lock()
        defer { sendLock.unlock() }
        guard !descriptorClosed else { return }
        descriptorClosed = true
        SandboxSystemCalls.closeDescriptor(fd)
    }

    /// Writes one line (a newline is added) unless the device's end is closed.
    func sendLine(_ line: String) throws(Errno) {
        sendLock.lock()
        defer { sendLock.unlock() }
        guard !descriptorClosed else { throw Errno(rawValue: EBADF) }
        try ProcessSystemCalls.sendAll(Data((line + "\n").utf8), to: fd)
    }
}

extension SimulatedDevice {
    /// A new channel for a target about to be launched: the device's connection
    /// and the descriptor the child gets (the caller closes it after the spawn).
    func lifecycleChannel(for target: SimulatedTarget, home: DataContainer) throws -> (connection: LifecycleConnection, targetEnd: Int32) {
        let pair: (Int32, Int32)
        do {
            pair = try ProcessSystemCalls.socketPair()
        } catch {
            throw SimulationError.sandbox(SandboxFailure(operation: "socketpair", path: home.home.path, errno: error))
        }
        return (LifecycleConnection(fd: pair.0, target: target, home: home.home.path, deviceRoot: root), pair.1)
    }

    func attach(_ connection: LifecycleConnection, to process: LaunchedProcess) {
        connection.device = self
        life.lifecycle.register(connection, for: process.processIdentifier)
        connection.attach(process, records: life.lifecycle)
        let settings = lifecycleSettings
        if let limit = settings.memoryLimit(for: connection.target) {
            life.lifecycle.memory.watch(connection, limit: limit, settings: settings)
        }
    }
}
