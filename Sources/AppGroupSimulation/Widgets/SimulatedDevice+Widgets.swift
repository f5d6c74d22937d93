import AppGroupContainer
import AppGroupSystem
import Foundation
import WidgetReloads

// WidgetKit on a simulated device: the test installs widget targets, sets the
// foreground app, the budget and the clock; the device handles the reload
// requests the targets' processes make (WidgetCenter, over their channels:
// SimulatedDevice+WidgetAsks.swift) by itself (WidgetDaemon); the test waits for
// them and reads the timelines and the reload log. The state lives in
// <root>/.device/widgetkit (see WidgetStore), where no target may write.
extension SimulatedDevice {
    /// Apple's documented lower bound of a widget's daily reload budget.
    public static let defaultWidgetDailyBudget = 40

    var widgetStore: WidgetStore { WidgetStore(root: ContainerRoot(root)) }

    /// Installs a widget of `kind` whose provider runs in `executable`, launched
    /// as `target` (a widget extension) when the device processes a reload.
    /// The executable calls `WidgetHost.run(_:kind:)`.
    /// - Throws: `WidgetStoreError` (WidgetReloads): a kind that is empty or too long, or records that cannot be written.
    public func installWidget(kind: String, family: WidgetFamily = .systemSmall, executable: URL, as target: SimulatedTarget) throws {
        try SimulationError.passingUp {
            if let problem = WidgetStore.problem(kind: kind) { throw WidgetStoreError.invalidKind(kind, problem: problem) }
            var state = try widgetStore.readSettings()
            state.widgets.removeAll { $0.kind == kind }
            state.widgets.append(.init(kind: kind, family: family, bundleIdentifier: target.bundleIdentifier, executable: executable.path))
            try widgetStore.writeSettings(state)
            life.widgets.state.withLock {
                $0.targets[kind] = target
                $0.executables[kind] = executable
            }
            try life.widgets.start(for: self)
        }
    }

    /// Sets the app in the foreground (nil: none): its reloads are free of budget, as on iOS.
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be written.
    public func setForegroundApp(_ target: SimulatedTarget?) throws {
        try SimulationError.passingUp {
            var state = try widgetStore.readSettings()
            state.foregroundApp = target?.bundleIdentifier
            try widgetStore.writeSettings(state)
        }
    }

    /// Sets how many reloads of one widget kind run per 24 hours of the device's
    /// clock when not asked by the foreground app (Apple documents 40 to 70).
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be written.
    public func setWidgetDailyBudget(_ reloads: Int) throws {
        try SimulationError.passingUp {
            var state = try widgetStore.readSettings()
            state.dailyBudget = max(0, reloads)
            try widgetStore.writeSettings(state)
        }
        life.widgets.poke() // deferred reloads may fit now
    }

    /// Moves the device's clock (its ``state``, read by every process of the device) forward.
    /// - Throws: ``SimulationError/container(_:)`` when the state cannot be read or written.
    public func advanceClock(by seconds: TimeInterval) throws {
        try changeState("advance the clock of") { state in
            state.clockOffset = min(state.clockOffset + max(0, seconds), DeviceState.clockOffsetLimit)
        }
        life.widgets.poke() // deferred reloads and timelines' policies may be due
    }

    /// The device's clock: now, plus every ``advanceClock(by:)``.
    /// - Throws: ``SimulationError/container(_:)`` when the state cannot be read.
    public func clock() throws -> Date { try state.clock() }

    /// The clock's offset, for the widget daemon (which throws the store's errors).
    func deviceClockOffset() throws(WidgetStoreError) -> TimeInterval {
        do { return try stateStore.read().clockOffset } catch { throw .files(error) }
    }

    /// Waits until the device has handled every reload request recorded so far,
    /// and what the clock made due (deferred reloads the budget allows again,
    /// timelines' policies), then returns what it did since the last call.
    ///
    /// The device handles requests by itself, as iOS does, while it lives: this
    /// call only waits (so that a test reads timelines at a known point). It
    /// returns the records appended to ``widgetReloads`` since the previous call
    /// (or since the device was made), oldest first.
    /// - Parameter timeout: how long to wait; a provider that hangs is killed
    ///   at ``widgetProviderTimeout``.
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be read or
    ///   written, or when the wait timed out; `SimulationError` when a widget's
    ///   executable cannot be launched.
    @discardableResult
    public func processWidgetReloads(timeout: TimeInterval = 120) async throws -> [WidgetReload] {
        let daemon = life.widgets
        try SimulationError.passingUp { try daemon.start(for: self) }
        guard try await SimulationError.passingUp({ try await daemon.waitForPass(timeout: timeout) }) else {
            let pending = (try? pendingWidgetReloadCount) ?? 0
            throw SimulationError.widgets(.waitTimedOut(seconds: timeout, pending: pending))
        }
        return try SimulationError.passingUp {
            let log = try widgetStore.readLog([WidgetReload].self) ?? []
            return daemon.state.withLock { state in
                defer { state.returned = log.count }
                return Array(log.dropFirst(min(state.returned, log.count)))
            }
        }
    }

    /// How long a widget's provider process may run before the device kills it
    /// and records the reload as failed (60 seconds unless set).
    public var widgetProviderTimeout: TimeInterval {
        get { life.widgets.state.withLock { $0.providerTimeout } }
        set { life.widgets.state.withLock { $0.providerTimeout = max(0, newValue) } }
    }

    /// The timelines the widgets of `kind` produced (the last one each; empty when
    /// none ran yet).
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be read.
    public func widgetTimelines(ofKind kind: String) throws -> [WidgetTimeline] {
        try SimulationError.passingUp {
            guard let record = try widgetStore.readTimeline(kind: kind) else { return [] }
            let entries = zip(record.entryDates, record.entryDescriptions).map { WidgetTimeline.Entry(date: $0, description: $1) }
            return [WidgetTimeline(kind: record.kind, family: record.family, entries: entries, policy: record.policy,
                                   reloadDate: record.reloadDate, producedAt: record.producedAt)]
        }
    }

    /// Every processed reload request of this device, oldest first.
    public var widgetReloads: [WidgetReload] {
        get throws { try widgetStore.readLog([WidgetReload].self) ?? [] }
    }

    /// Reload requests made by the device's processes and not processed yet.
    public var pendingWidgetReloadCount: Int {
        get throws { try widgetStore.pendingRequests().count + life.widgets.state.withLock { $0.pending.count } }
    }

    /// What the device refused its targets' processes on their channels, oldest
    /// first (the first 100; later ones are counted in the last): a timeline from
    /// a process the device did not launch for that kind, or too large; a request
    /// the device does not take from a target (its clock, its budget, its
    /// records); a request that is not what the package sends. Each names the
    /// target and its process.
    public var refusedWidgetRequests: [WidgetStoreError] {
        life.widgets.state.withLock { state in
            state.refusals + (state.refusalsDropped > 0
                ? [WidgetStoreError.requestRefused(request: "(more)", from: "the device's targets",
                                                   problem: "\(state.refusalsDropped) more refusals were not kept")] : [])
        }
    }
}
