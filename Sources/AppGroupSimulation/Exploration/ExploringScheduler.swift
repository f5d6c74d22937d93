import AppGroupContainer
import AppGroupSystem
import Foundation

/// The scheduler of one exploring device for one schedule: a thread of its own
/// that reads the targets' requests (one before each coordinated step) and lets
/// one waiting process go at a time, chosen by its ``Chooser``.
///
/// It decides when every live process of the device is settled: waiting for a
/// turn, or granted and quiet for ``quiet`` (blocked on a lock, say, or busy
/// outside the coordinated steps), or launched and not yet at its first step for
/// ``startup``. A process that dies is dropped at once; so a dead or stuck target
/// ends nothing but its own part, and the scheduler never waits forever.
final class ExploringScheduler: @unchecked Sendable {
    // @unchecked: the mutable state is touched under `state` only.
    static let quiet: TimeInterval = 0.03
    static let startup: TimeInterval = 5
    /// After a signal's post or delivery is granted, how long no decision is
    /// made: the observers a post woke ask for their delivery's turn meanwhile, and
    /// a delivered handler (often run on another queue of its process) reaches its
    /// own next step, so that these and the other processes' waiting steps are all
    /// choices of the seed (not a race that whoever is awake already wins).
    static let afterSignal: TimeInterval = 0.1

    struct Process {
        let ordinal: Int
        var name: String
        let seen: Date
        var waiting: String?
        var granted: Date?
        var requested = false
        /// Launched by the device as a target: iOS's faults apply to it.
        var target = false
    }

    /// One decision of a schedule: a step granted, or a fault applied to a
    /// process waiting at its step (granted next, if it survives).
    enum Decision: Hashable {
        case grant(Int)
        case fault(Int, ExplorationFault)
    }

    private struct State {
        var processes: [Int32: Process] = [:]
        var nextOrdinal = 0
        var schedule: [String] = []
        var chooser: Chooser
        var stopped = false
        var deaths: [String] = []
        /// Launches under way, and when the last one ended: no decision is made
        /// while the test is launching targets, so that every target launched
        /// together is known before the first turn (the same seed, the same order).
        var launching = 0
        var lastLaunch = Date.distantPast
        /// No decision before this (``afterSignal``).
        var settleUntil = Date.distantPast
        /// Each process's connection, by pid (the kernel's word at connect).
        var connections: [Int32: Int32] = [:]
        /// Requests the scheduler refused to read, said as the device's failures.
        var refusals: [String] = []
        /// The decisions so far, to replay them.
        var decisions: [Decision] = []
        /// The faults of this schedule, by seed (nil: none, or a replay's script decides).
        var faults: FaultPlan?
        /// A replay's decisions, followed while they fit; then the seed's.
        var script: [Decision]?
        var scripted = 0
        /// Where a replay's decisions stopped fitting the run.
        var divergence: String?
        /// A fault being applied: no decision until it ends.
        var applying = false
        /// The process whose step was the fault's: granted next, if it survives.
        var afterFault: Int32?
        var faultsApplied = 0
    }

    /// The longest request line taken from a process (the wire's lines are under 1 KiB).
    static let requestLimit = 4096

    let directory: URL
    private let state: Locked<State>
    private let done = DispatchSemaphore(value: 0)

    /// Applies a fault to a process (the device's lifecycle) and says what came of it.
    private let applyFault: @Sendable (ExplorationFault, Int32) -> (outcome: String, ended: Bool)

    init(directory: URL, strategy: ExplorationStrategy, seed: UInt64, expectedSteps: Int, faults: Set<ExplorationFault> = [],
         script: [Decision]? = nil, applyFault: @escaping @Sendable (ExplorationFault, Int32) -> (outcome: String, ended: Bool) = { _, _ in ("not applied", false) }) {
        self.directory = directory
        var initial = State(chooser: Chooser(strategy: strategy, seed: seed, expectedSteps: expectedSteps))
        initial.faults = faults.isEmpty || script != nil ? nil : FaultPlan(faults: faults, seed: seed)
        initial.script = script
        state = Locked(initial)
        self.applyFault = applyFault
    }

    /// The decisions taken, in order.
    var decisions: [Decision] { state.withLock { $0.decisions } }
    /// Where a replay's script stopped fitting the run (nil: it fit, or there was none).
    var divergence: String? { state.withLock { $0.divergence } }
    /// Faults applied.
    var faultsApplied: Int { state.withLock { $0.faultsApplied } }

    /// The steps granted so far, in order: "<ordinal> <target>: <step> <item>".
    var schedule: [String] { state.withLock { $0.schedule } }
    /// Targets that died while waiting for a turn or holding one.
    var deaths: [String] { state.withLock { $0.deaths } }
    /// What the scheduler refused to read from a process's connection.
    var refusals: [String] { state.withLock { $0.refusals } }

    /// The device starts launching a process (``launched(_:name:)`` follows).
    func beginLaunch() { state.withLock { $0.launching += 1 } }

    /// The launch ended (launched or failed).
    func endLaunch() {
        state.withLock { state in
            state.launching -= 1
            state.lastLaunch = Date()
        }
    }

    /// A process the device launched: known before its first request, so that
    /// the scheduler waits for it to reach its first step.
    func launched(_ pid: Int32, name: String) {
        state.withLock { state in
            guard state.processes[pid] == nil else {
                // Its first request came before the launcher's word (the child ran
                // first): known by its pid until now, named as the target it runs as.
                state.processes[pid]?.name = name
                state.processes[pid]?.target = true
                return
            }
            state.processes[pid] = Process(ordinal: state.nextOrdinal, name: name, seen: Date(), target: true)
            state.nextOrdinal += 1
        }
    }

    /// Starts the scheduling thread.
    func start() throws {
        guard let wire = Exploration.Wire(directory: directory.path) else {
            throw AppGroupError.systemCall(operation: "bind", path: directory.appendingPathComponent("scheduler").path, errno: .current)
        }
        let thread = Thread { [self] in
            ThreadName.setCurrent("explore scheduler")
            run(wire)
            done.signal()
        }
        thread.start()
    }

    /// Stops the thread (waiting for it at most a few seconds).
    func stop() {
        state.withLock { $0.stopped = true }
        _ = done.wait(timeout: .now() + 5)
        // A fault under way ends by itself (each of its requests has a deadline).
        let deadline = Date().addingTimeInterval(120)
        while state.withLock({ $0.applying }), Date() < deadline { usleep(5_000) }
    }

    private func run(_ wire: borrowing Exploration.Wire) {
        // Each connection's process (as the kernel named it at connect) and its unread line.
        var connections: [Int32: (pid: Int32, lines: ChannelLines)] = [:]
        while !state.withLock({ $0.stopped }) {
            for event in wire.events(on: Array(connections.keys), waiting: 2) {
                switch event {
                case .connected(let fd, let pid):
                    connections[fd] = (pid, ChannelLines(limit: Self.requestLimit))
                    let replaced = state.withLock { state -> Int32? in
                        defer { state.connections[pid] = fd }
                        return state.connections[pid]
                    }
                    if let replaced, replaced != fd { connections.removeValue(forKey: replaced); wire.close(replaced) }
                case .bytes(let fd, let bytes):
                    guard let pid = connections[fd]?.pid else { continue }
                    connections[fd]?.lines.append(bytes) { piece in
                        switch piece {
                        case .line(let line): receive(line, from: pid)
                        case .oversized(let size): refuse(size, from: pid)
                        }
                    }
                case .ended(let fd):
                    guard let pid = connections.removeValue(forKey: fd)?.pid else { continue }
                    wire.close(fd)
                    // It runs freely from now on (or it ended): nothing of it to wait for.
                    state.withLock { state in
                        if state.connections[pid] == fd { state.connections.removeValue(forKey: pid) }
                        state.processes[pid]?.waiting = nil
                    }
                }
            }
            reap()
            if let pid = decide(), let fd = state.withLock({ $0.connections[pid] }) { _ = wire.grant(on: fd) }
        }
        for fd in connections.keys { wire.close(fd) }
    }

    /// One request line: "<step>\t<item>", from the process `pid` the kernel named.
    private func receive(_ line: String, from pid: Int32) {
        let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        guard fields.count == 2 else { return }
        state.withLock { state in
            if state.processes[pid] == nil {
                // Not launched by the device (a grandchild): known from its first step.
                state.processes[pid] = Process(ordinal: state.nextOrdinal, name: "pid \(pid)", seen: Date())
                state.nextOrdinal += 1
            }
            state.processes[pid]?.waiting = "\(fields[0]) \(fields[1])"
            state.processes[pid]?.requested = true
        }
    }

    private func refuse(_ size: Int, from pid: Int32) {
        state.withLock { state in
            let name = state.processes[pid]?.name ?? "pid \(pid)"
            state.refusals.append("\(name) [\(pid)] wrote a request longer than \(Self.requestLimit) bytes to the exploring scheduler "
                + "(\(size) bytes of it when it passed the limit): it was dropped; only the package's own steps should write to that socket")
        }
    }

    /// Drops processes that ended (zombies included).
    private func reap() {
        let pids = state.withLock { Array($0.processes.keys) }
        for pid in pids {
            let now = ProcessState.of(pid)
            guard now == .ended || now == .unknown else { continue }
            state.withLock { state in
                if let gone = state.processes.removeValue(forKey: pid), let step = gone.waiting {
                    state.deaths.append("\(gone.ordinal) \(gone.name) died waiting for its turn at \(step)")
                }
            }
        }
    }

    /// The process to grant a step now, if every live process is settled.
    private func decide() -> Int32? {
        let decided: (pid: Int32, fault: ExplorationFault?, label: String)? = state.withLock { state in
            let now = Date()
            if state.applying { return nil }
            if let pid = state.afterFault {
                // The step the fault struck at goes on, if its process lives and still waits.
                state.afterFault = nil
                guard let process = state.processes[pid], process.waiting != nil else { return nil }
                if state.script != nil { _ = nextScripted(&state, waiting: [process.ordinal]) }
                return (grant(pid, &state, now: now), nil, "")
            }
            if state.launching > 0 || now.timeIntervalSince(state.lastLaunch) < Self.quiet || now < state.settleUntil { return nil }
            var waiting: [(ordinal: Int, pid: Int32)] = []
            for (pid, process) in state.processes {
                if process.waiting != nil { waiting.append((process.ordinal, pid)); continue }
                if let granted = process.granted {
                    if now.timeIntervalSince(granted) < Self.quiet { return nil }
                } else if !process.requested, now.timeIntervalSince(process.seen) < Self.startup {
                    return nil
                }
            }
            guard !waiting.isEmpty else { return nil }
            waiting.sort { $0.ordinal < $1.ordinal }
            var ordinal: Int
            var fault: ExplorationFault?
            switch state.script != nil ? nextScripted(&state, waiting: waiting.map(\.ordinal)) : nil {
            case .grant(let scripted)?: ordinal = scripted
            case .fault(let scripted, let kind)?: (ordinal, fault) = (scripted, kind)
            case nil: ordinal = state.chooser.choose(waiting.map(\.ordinal), step: state.schedule.count + 1)
            }
            guard let pid = waiting.first(where: { $0.ordinal == ordinal })?.pid, let process = state.processes[pid] else { return nil }
            if state.script == nil, process.target, var plan = state.faults {
                fault = plan.roll()
                state.faults = plan
            }
            guard let fault else { return (grant(pid, &state, now: now), nil, "") }
            state.decisions.append(.fault(ordinal, fault))
            state.applying = true
            return (pid, fault, "\(ordinal) \(process.name): iOS's \(fault) at \(anonymous(process.waiting ?? "its step"))")
        }
        guard let decided else { return nil }
        guard let fault = decided.fault else { return decided.pid }
        let thread = Thread { [self] in
            ThreadName.setCurrent("explore fault")
            let (outcome, ended) = applyFault(fault, decided.pid)
            state.withLock { state in
                state.schedule.append("\(decided.label): \(outcome)")
                // Ended by the fault: dropped now, before its connection's end is read, so that no turn is granted to it.
                if ended, let gone = state.processes.removeValue(forKey: decided.pid), let step = gone.waiting {
                    state.deaths.append("\(gone.ordinal) \(gone.name) died waiting for its turn at \(step)")
                }
                Tracing.mark(.schedule, "fault \(state.faultsApplied + 1): \(fault)", [("pid", "\(decided.pid)"), ("outcome", outcome)])
                state.faultsApplied += 1
                state.afterFault = decided.pid
                state.applying = false
            }
        }
        thread.start()
        return nil
    }

    /// The next scripted decision when it fits the processes `waiting`; else the
    /// divergence is noted, and the seed's choices go on.
    private func nextScripted(_ state: inout State, waiting: [Int]) -> Decision? {
        guard let script = state.script else { return nil }
        guard state.scripted < script.count else {
            state.script = nil
            return nil
        }
        let next = script[state.scripted]
        let ordinal: Int
        switch next {
        case .grant(let scripted), .fault(let scripted, _): ordinal = scripted
        }
        guard waiting.contains(ordinal) else {
            state.divergence = "at decision \(state.scripted + 1) the replay gives process \(ordinal) its turn, but the processes waiting are \(waiting)"
            state.script = nil
            return nil
        }
        state.scripted += 1
        return next
    }

    /// The device's own directory as "$DEVICE": a schedule is the same on every device.
    private func anonymous(_ step: String) -> String {
        step.replacingOccurrences(of: directory.deletingLastPathComponent().path, with: "$DEVICE")
    }

    /// Grants `pid` its step: records it and returns it.
    private func grant(_ pid: Int32, _ state: inout State, now: Date) -> Int32 {
        guard var process = state.processes[pid] else { return pid }
        let step = anonymous(process.waiting ?? "")
        state.decisions.append(.grant(process.ordinal))
        state.schedule.append("\(process.ordinal) \(process.name): \(step)")
        Tracing.mark(.schedule, "turn \(state.schedule.count): \(process.name)",
                     [("step", process.waiting ?? ""), ("pid", "\(pid)"), ("exploration", directory.path)])
        if process.waiting?.hasPrefix("signal ") == true {
            state.settleUntil = now.addingTimeInterval(Self.afterSignal)
        }
        process.waiting = nil
        process.granted = now
        state.processes[pid] = process
        return pid
    }
}

/// The exploring schedulers of live devices, by device directory: a launched
/// process registers with its device's.
enum ExploringSchedulers {
    private static let live = Locked<[String: ExploringScheduler]>([:])

    static func register(_ scheduler: ExploringScheduler, device: URL) { live.withLock { $0[device.path] = scheduler } }
    static func unregister(device: URL) { _ = live.withLock { $0.removeValue(forKey: device.path) } }

    /// Called for every process a device launches.
    static func launched(_ pid: Int32, name: String, device: URL?) {
        guard let device, let scheduler = live.withLock({ $0[device.path] }) else { return }
        scheduler.launched(pid, name: name)
    }

    static func scheduler(for device: URL) -> ExploringScheduler? { live.withLock { $0[device.path] } }

    /// Brackets one launch by `device` (nothing when it is not exploring).
    static func launching<T>(on device: URL, _ body: () throws -> T) rethrows -> T {
        guard let scheduler = scheduler(for: device) else { return try body() }
        scheduler.beginLaunch()
        defer { scheduler.endLaunch() }
        return try body()
    }
}
