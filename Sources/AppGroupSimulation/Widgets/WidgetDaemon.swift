import AppGroupContainer
import AppGroupSystem
import Foundation
import WidgetReloads

/// The device's WidgetKit daemon: one thread per device, started when the first
/// widget is installed, that handles reload requests as iOS does, without the
/// test asking. It wakes when a request is posted on the device's signal table,
/// when the test moves the clock or the budget, and when a deferred reload or a
/// timeline's policy comes due; then it makes one pass
/// (``SimulatedDevice/handleWidgetReloads(_:)``). Passes are serial, so no two
/// providers (of one kind or any) ever run at once on a device.
///
/// ``SimulatedDevice/processWidgetReloads(timeout:)`` asks for a pass and waits
/// for it: a pass that starts after the ask reads every request recorded before it.
final class WidgetDaemon: @unchecked Sendable {
    // Every mutable field is guarded by `condition`.
    private let condition = NSCondition()
    private var asked: UInt64 = 0
    private var passed: UInt64 = 0
    private var running = false
    private var stopped = false
    private var waiters: [(ticket: UInt64, id: Int, resume: @Sendable (Bool) -> Void)] = []
    private var nextWaiter = 0
    private var observation: SignalObservation?
    private var provider: LaunchedProcess?
    /// The kind whose provider is being launched or runs (nil: none).
    private var providerKind: String?
    private var thread: Thread?
    private var passError: (any Error)?

    /// What the daemon keeps between passes (used by its thread only, and by the
    /// device's calls under `state`'s lock).
    let state = Locked(State())

    struct State {
        /// The targets widgets were installed as, by kind (a target is not a
        /// record: it stays in the test process that installed it).
        var targets: [String: SimulatedTarget] = [:]
        /// The executables the test installed, by kind: what the daemon launches
        /// (kept here, never read back from a file).
        var executables: [String: URL] = [:]
        /// Reload requests the targets made over their channels, in order.
        var pending: [ChannelReload] = []
        var nextPending: UInt64 = 0
        /// What the device refused its targets (the first ``refusalLimit``).
        var refusals: [WidgetStoreError] = []
        var refusalsDropped = 0
        /// Why the device refused the timeline of the provider now running.
        var providerRefusal: WidgetStoreError?
        /// How long a provider's process may run before it is killed.
        var providerTimeout: TimeInterval = 60
        /// How many records of the log ``SimulatedDevice/processWidgetReloads(timeout:)`` returned already.
        var returned = 0
        /// The timelines (by kind, their `producedAt`) whose policy reload was handled.
        var policiesHandled: [String: Date] = [:]
    }

    /// A reload request a target made over its channel: who and when as the
    /// device saw it, and whether it was then the foreground app.
    struct ChannelReload {
        let id: UInt64
        let request: WidgetStore.Request
        let fromForegroundApp: Bool
    }

    /// The most reload requests of one target waiting at once; more are refused
    /// (the daemon's pass and its log stay bounded whatever a target sends).
    static let pendingLimit = 1_000
    /// The most refusals kept; later ones are counted.
    static let refusalLimit = 100

    /// Records a refusal for ``SimulatedDevice/refusedWidgetRequests``.
    func refuse(_ error: WidgetStoreError) {
        state.withLock { state in
            if state.refusals.count < Self.refusalLimit { state.refusals.append(error) } else { state.refusalsDropped += 1 }
        }
    }

    /// How long the thread sleeps when nothing is due before it looks again (every wait has a deadline).
    static let patience: TimeInterval = 30

    /// Starts the thread (once) for `device`, observing reload requests on its signal table.
    func start(for device: SimulatedDevice) throws(AppGroupError) {
        condition.lock()
        defer { condition.unlock() }
        guard !running, !stopped else { return }
        let table = try SignalTable.forDevice(root: ContainerRoot(device.root))
        observation = table.observe(WidgetStore.reloadSignal) { [weak self] in self?.poke() }
        running = true
        asked += 1 // requests recorded before the observation began
        let thread = Thread { [weak device, self] in run { device } }
        thread.name = "WidgetKit \(device.root.path)"
        self.thread = thread
        thread.start()
    }

    /// Asks for a pass; returns its ticket.
    @discardableResult
    func poke() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        asked += 1
        condition.broadcast()
        return asked
    }

    /// Waits, without blocking a thread, until a pass asked after this call ends;
    /// false at `timeout`, or when the daemon stopped first. Throws what that pass threw.
    func waitForPass(timeout: TimeInterval) async throws -> Bool {
        let ticket = poke()
        let id = condition.withLock { () -> Int in nextWaiter += 1; return nextWaiter }
        let done: Bool = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let waiting = condition.withLock { () -> Bool in
                if passed >= ticket || stopped { return false }
                waiters.append((ticket, id, once.resume))
                return true
            }
            guard waiting else { return once.resume(condition.withLock { passed >= ticket }) }
            once.timer = Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                guard !Task.isCancelled else { return }
                self?.condition.withLock { self?.waiters.removeAll { $0.id == id } }
                once.resume(false)
            }
        }
        if let error = condition.withLock({ passError }) { throw error }
        return done
    }

    /// The provider process now running, so that ``stop()`` can end it and its
    /// timeline is taken from it alone.
    func setProvider(_ process: LaunchedProcess?) -> Bool {
        condition.withLock {
            provider = stopped ? nil : process
            if process == nil { providerKind = nil }
            condition.broadcast()
            return !stopped
        }
    }

    /// Says that the provider of `kind` is being launched: until ``setProvider(_:)``
    /// names its process, ``launchedKind(of:)`` waits for it.
    func launchingProvider(of kind: String) {
        condition.withLock {
            providerKind = kind
            provider = nil
        }
    }

    /// The kind the daemon launched process `pid` to reload; nil when it launched
    /// no such process. A process that asks while its launch is being finished
    /// waits for it (ten seconds at most).
    func launchedKind(of pid: Int32) -> String? {
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while providerKind != nil, provider == nil, !stopped, condition.wait(until: deadline) {}
        guard let provider, provider.processIdentifier == pid else { return nil }
        return providerKind
    }

    /// Stops the thread: kills a provider under way and waits (ten seconds at
    /// most) for the thread to end, so that nothing writes to a removed device.
    func stop() {
        condition.lock()
        stopped = true
        observation?.cancel()
        observation = nil
        provider?.kill()
        condition.broadcast()
        // The device may end on this thread (its last reference dropped after a
        // pass): then the loop ends when this call returns.
        let limit = Date().addingTimeInterval(10)
        while running, Thread.current !== thread, condition.wait(until: limit) {}
        let left = waiters
        waiters.removeAll()
        condition.unlock()
        for waiter in left { waiter.resume(false) }
    }

    /// The thread: waits for a poke or a due date, then makes a pass; ends when
    /// stopped or when the device is gone.
    private func run(_ weakDevice: () -> SimulatedDevice?) {
        var due: Date?
        while true {
            condition.lock()
            while !stopped, passed >= asked {
                let limit = min(due ?? .distantFuture, Date().addingTimeInterval(Self.patience))
                if !condition.wait(until: limit), limit == due { break } // something came due
            }
            let ticket = asked
            if stopped { running = false; condition.broadcast(); condition.unlock(); return }
            condition.unlock()

            var error: (any Error)?
            if let device = weakDevice() {
                do { due = try device.handleWidgetReloads(self) } catch let thrown { error = thrown; due = nil }
                // A date already past would make the loop spin: at least a second ahead.
                if let next = due { due = max(next, Date().addingTimeInterval(1)) }
            } else {
                condition.withLock { stopped = true }
            }

            condition.lock()
            passed = max(passed, ticket)
            passError = error
            let ready = waiters.filter { $0.ticket <= passed }
            waiters.removeAll { $0.ticket <= passed }
            condition.broadcast()
            condition.unlock()
            for waiter in ready { waiter.resume(true) }
        }
    }
}

/// A continuation resumed once, by whichever comes first: the pass or the
/// deadline (whose timer is then cancelled).
private final class Once: @unchecked Sendable {
    // Both fields are guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Bool, Never>?
    private var pendingTimer: Task<Void, Never>?

    init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = continuation }

    var timer: Task<Void, Never>? {
        get { lock.withLock { pendingTimer } }
        set {
            let resumed = lock.withLock { () -> Bool in pendingTimer = newValue; return continuation == nil }
            if resumed { newValue?.cancel() }
        }
    }

    func resume(_ value: Bool) {
        let (pending, timer) = lock.withLock { () -> (CheckedContinuation<Bool, Never>?, Task<Void, Never>?) in
            defer { continuation = nil; pendingTimer = nil }
            return (continuation, pendingTimer)
        }
        timer?.cancel()
        pending?.resume(returning: value)
    }
}
