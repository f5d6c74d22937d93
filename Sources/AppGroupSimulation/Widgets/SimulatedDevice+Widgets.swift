import AppGroupContainer
import AppGroupSystem
import Foundation
import WidgetReloads

// WidgetKit on a simulated device: the test installs widget targets, sets the
// foreground app, the budget and the clock, processes the reload requests the
// targets' processes recorded (WidgetCenter), and reads the timelines and the
// reload log. The state lives in <root>/.coordination/widgetkit (see WidgetStore)
// so that every process of the device reads the same clock and foreground app.
extension SimulatedDevice {
    /// Apple's documented lower bound of a widget's daily reload budget.
    public static let defaultWidgetDailyBudget = 40

    private var widgetStore: WidgetStore { WidgetStore(root: ContainerRoot(root)) }

    /// Installs a widget of `kind` whose provider runs in `executable`, launched
    /// as `target` (a widget extension) when the device processes a reload.
    /// The executable calls `WidgetHost.run(_:kind:)`.
    /// - Throws: `WidgetStoreError` (WidgetReloads): a kind that is empty or too long, or records that cannot be written.
    public func installWidget(kind: String, family: WidgetFamily = .systemSmall, executable: URL, as target: SimulatedTarget) throws {
        try SimulationError.passingUp {
            if let problem = WidgetStore.problem(kind: kind) { throw WidgetStoreError.invalidKind(kind, problem: problem) }
            var state = try widgetStore.readState()
            state.widgets.removeAll { $0.kind == kind }
            state.widgets.append(.init(kind: kind, family: family, bundleIdentifier: target.bundleIdentifier, executable: executable.path))
            try widgetStore.writeState(state)
            WidgetTargets.shared.withLock { $0[root.path + "\u{0}" + kind] = target }
        }
    }

    /// Sets the app in the foreground (nil: none): its reloads are free of budget, as on iOS.
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be written.
    public func setForegroundApp(_ target: SimulatedTarget?) throws {
        try SimulationError.passingUp {
            var state = try widgetStore.readState()
            state.foregroundApp = target?.bundleIdentifier
            try widgetStore.writeState(state)
        }
    }

    /// Sets how many reloads of one widget kind run per 24 hours of the device's
    /// clock when not asked by the foreground app (Apple documents 40 to 70).
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be written.
    public func setWidgetDailyBudget(_ reloads: Int) throws {
        try SimulationError.passingUp {
            var state = try widgetStore.readState()
            state.dailyBudget = max(0, reloads)
            try widgetStore.writeState(state)
        }
    }

    /// Moves the device's clock (read by every process of the device for WidgetKit) forward.
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be written.
    public func advanceClock(by seconds: TimeInterval) throws {
        try SimulationError.passingUp {
            var state = try widgetStore.readState()
            state.clockOffset += max(0, seconds)
            try widgetStore.writeState(state)
        }
    }

    /// The device's clock: now, plus every ``advanceClock(by:)``.
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be read.
    public func clock() throws -> Date { try SimulationError.passingUp { try widgetStore.now() } }

    /// Processes the pending reload requests, oldest first: each runs the widget's
    /// process when within budget (or asked by the foreground app), else is
    /// deferred. Returns what it did, also appended to ``widgetReloads``.
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be read or written;
    ///   `SimulationError` when a widget's executable cannot be launched.
    @discardableResult
    public func processWidgetReloads(timeout: TimeInterval = 60) async throws -> [WidgetReload] {
        try await SimulationError.passingUp {
            let store = widgetStore
            var log = try store.readLog([WidgetReload].self) ?? []
            var done: [WidgetReload] = []
            for (name, request) in try store.pendingRequests() {
                let state = try store.readState()
                let kinds = request.kind.map { [$0] } ?? state.widgets.map(\.kind)
                for kind in kinds {
                    let reload = try await process(request, kind: kind, state: state, log: log, timeout: timeout)
                    log.append(reload)
                    done.append(reload)
                }
                try store.writeLog(log)
                try store.removeRequest(named: name)
            }
            return done
        }
    }

    private func process(_ request: WidgetStore.Request, kind: String, state: WidgetStore.DeviceState,
                         log: [WidgetReload], timeout: TimeInterval) async throws -> WidgetReload {
        func record(_ outcome: WidgetReload.Outcome, counted: Bool, problem: String? = nil) -> WidgetReload {
            WidgetReload(requester: request.requester, kind: kind, date: request.date, fromForegroundApp: request.fromForegroundApp,
                         outcome: outcome, countedAgainstBudget: counted, problem: problem)
        }
        guard let widget = state.widgets.first(where: { $0.kind == kind }),
              let target = WidgetTargets.shared.withLock({ $0[root.path + "\u{0}" + kind] }) else {
            return record(.noWidget, counted: false)
        }
        let counted = !request.fromForegroundApp
        if counted {
            let dayBefore = request.date.addingTimeInterval(-86_400)
            let used = log.filter { $0.kind == kind && $0.countedAgainstBudget && $0.outcome != .deferred && $0.date > dayBefore }.count
            if used >= state.dailyBudget { return record(.deferred, counted: false) }
        }
        let outcome = try await run(URL(fileURLWithPath: widget.executable), [], as: target,
                                    environment: [WidgetHost.kindKey: kind, WidgetHost.familyKey: String(widget.family.rawValue)],
                                    timeout: timeout)
        if !outcome.succeeded { return record(.failed, counted: counted, problem: outcome.description) }
        return record(.ran, counted: counted)
    }

    /// The timelines the widgets of `kind` produced (the last one each; empty when
    /// none ran yet).
    /// - Throws: `WidgetStoreError` (WidgetReloads) when the records cannot be read.
    public func widgetTimelines(ofKind kind: String) throws -> [WidgetTimeline] {
        try SimulationError.passingUp {
            guard let record = try widgetStore.readTimeline(kind: kind) else { return [] }
            let entries = zip(record.entryDates, record.entryDescriptions).map { WidgetTimeline.Entry(date: $0, description: $1) }
            return [WidgetTimeline(kind: record.kind, family: record.family, entries: entries, policy: record.policy, producedAt: record.producedAt)]
        }
    }

    /// Every processed reload request of this device, oldest first.
    public var widgetReloads: [WidgetReload] {
        get throws { try widgetStore.readLog([WidgetReload].self) ?? [] }
    }

    /// Reload requests recorded by the device's processes and not processed yet.
    public var pendingWidgetReloadCount: Int {
        get throws { try widgetStore.pendingRequests().count }
    }
}

/// The targets widgets were installed as, by device root and kind (a target is
/// not a record: it stays in the test process that installed it).
private enum WidgetTargets {
    static let shared = Locked<[String: SimulatedTarget]>([:])
}
