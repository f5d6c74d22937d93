import AppGroupContainer
import Foundation
import WidgetReloads

// One pass of the device's WidgetKit daemon (WidgetDaemon): the requests the
// targets made over their channels and those processes without a channel
// recorded, oldest first, then what the device's clock made due. Runs on the
// daemon's thread only, so the log has one writer and no two providers run at once.
extension SimulatedDevice {
    /// A request waiting for the pass: from a target's channel (the device named
    /// its requester and decided then whether it was the foreground app), or a
    /// file of a process without a channel.
    private enum PendingReload {
        case channel(WidgetDaemon.ChannelReload)
        case file(name: String, request: WidgetStore.Request)

        var request: WidgetStore.Request {
            switch self {
            case .channel(let reload): reload.request
            case .file(_, let request): request
            }
        }
    }

    /// Handles what is pending and due; returns when (real time) something
    /// will next be due, nil when nothing is scheduled.
    func handleWidgetReloads(_ daemon: WidgetDaemon) throws -> Date? {
        let store = widgetStore
        var log = try store.readLog([WidgetReload].self) ?? []
        let fromChannels = daemon.state.withLock { $0.pending }.map(PendingReload.channel)
        let fromFiles = try store.pendingRequests().map { PendingReload.file(name: $0.name, request: $0.request) }
        let pending = (fromChannels + fromFiles).enumerated()
            .sorted { ($0.element.request.date, $0.offset) < ($1.element.request.date, $1.offset) }.map(\.element)
        for reload in pending {
            let state = try store.readSettings()
            let request = reload.request
            let fromForegroundApp = switch reload {
            case .channel(let made): made.fromForegroundApp
            case .file: state.foregroundApp == request.requester
            }
            for kind in request.kind.map({ [$0] }) ?? state.widgets.map(\.kind) {
                log.append(try handle(request, fromForegroundApp: fromForegroundApp, kind: kind, state: state, log: log, daemon: daemon))
            }
            try store.writeLog(log)
            switch reload {
            case .channel(let made): daemon.state.withLock { $0.pending.removeAll { $0.id == made.id } }
            case .file(let name, _): try store.removeRequest(named: name)
            }
        }
        let state = try store.readSettings()
        var due: Date?
        for widget in state.widgets {
            let next = try handleDue(widget, state: state, log: &log, daemon: daemon)
            try store.writeLog(log)
            if let next { due = min(due ?? next, next) }
        }
        let offset = try deviceClockOffset()
        return due.map { $0.addingTimeInterval(-offset) }
    }

    /// An app's request: runs now when the foreground app asked or the budget
    /// allows, else is deferred.
    private func handle(_ request: WidgetStore.Request, fromForegroundApp: Bool, kind: String, state: WidgetStore.Settings,
                        log: [WidgetReload], daemon: WidgetDaemon) throws -> WidgetReload {
        func record(_ outcome: WidgetReload.Outcome, counted: Bool, problem: String? = nil) -> WidgetReload {
            WidgetReload(requester: request.requester, kind: kind, date: request.date, fromForegroundApp: fromForegroundApp,
                         outcome: outcome, countedAgainstBudget: counted, problem: problem, cause: .request,
                         ranAt: outcome == .ran || outcome == .failed ? request.date : nil)
        }
        guard let widget = state.widgets.first(where: { $0.kind == kind }) else {
            // iOS drops such a request without a word; a misspelled kind then looks
            // like a widget that never updates.
            let installed = state.widgets.map { "\"\($0.kind)\"" }.joined(separator: ", ")
            let problem = "\(request.requester) asked to reload the widget kind \"\(kind)\", but no widget of that kind is installed on the device "
                + "(installed: \(installed.isEmpty ? "none" : installed)); iOS ignores the request silently. Check the kind's spelling "
                + "or install the widget with installWidget(kind:family:executable:as:)"
            Diagnostics.warnOnce(about: "widget-kind \(directory.path) \(kind)", "WidgetKit: \(problem), on the device at \(directory.path)")
            return record(.noWidget, counted: false, problem: problem)
        }
        let counted = !fromForegroundApp
        if counted, !WidgetBudget(dailyBudget: state.dailyBudget, log: log).allows(kind, at: request.date) {
            return record(.deferred, counted: false)
        }
        let (outcome, problem) = try runProvider(of: widget, daemon: daemon)
        return record(outcome, counted: counted && outcome != .noWidget, problem: problem)
    }

    /// What the clock made due for `widget`: its deferred reloads, run once when
    /// the budget allows it, then its timeline's policy (a system reload, counted
    /// as WidgetKit counts them; deferred beyond the budget). Returns when
    /// (device clock) the next of these is due.
    private func handleDue(_ widget: WidgetStore.InstalledWidget, state: WidgetStore.Settings,
                           log: inout [WidgetReload], daemon: WidgetDaemon) throws -> Date? {
        let kind = widget.kind
        let now = Date().addingTimeInterval(try deviceClockOffset())
        var due: Date?
        if let deferral = WidgetBudget(dailyBudget: state.dailyBudget, log: log).waitingDeferral(of: kind) {
            let budget = WidgetBudget(dailyBudget: state.dailyBudget, log: log)
            if budget.allows(kind, at: now) {
                let (outcome, problem) = try runProvider(of: widget, daemon: daemon)
                log.append(WidgetReload(requester: deferral.requester, kind: kind, date: deferral.date, fromForegroundApp: false,
                                        outcome: outcome, countedAgainstBudget: outcome != .noWidget, problem: problem,
                                        cause: .deferred, ranAt: outcome == .noWidget ? nil : now))
            } else {
                due = budget.nextAllowed(kind, from: now)
            }
        }
        guard let timeline = try widgetStore.readTimeline(kind: kind), let reloadDate = timeline.reloadDate,
              daemon.state.withLock({ $0.policiesHandled[kind] }) != timeline.producedAt else { return due }
        // Apple asks for entries at least five minutes apart; a policy date sooner
        // than that after the timeline (or in its past) waits until then, so that a
        // provider cannot make the device reload it in a loop.
        let policyDue = max(reloadDate, timeline.producedAt.addingTimeInterval(Self.minimumPolicyInterval))
        guard now >= policyDue else { return min(due ?? policyDue, policyDue) }
        daemon.state.withLock { $0.policiesHandled[kind] = timeline.producedAt }
        let budget = WidgetBudget(dailyBudget: state.dailyBudget, log: log)
        guard budget.allows(kind, at: now) else {
            log.append(WidgetReload(requester: WidgetReload.systemRequester, kind: kind, date: policyDue, fromForegroundApp: false,
                                    outcome: .deferred, countedAgainstBudget: false, cause: .policy, ranAt: nil))
            return [due, budget.nextAllowed(kind, from: now)].compactMap { $0 }.min()
        }
        let (outcome, problem) = try runProvider(of: widget, daemon: daemon)
        log.append(WidgetReload(requester: WidgetReload.systemRequester, kind: kind, date: policyDue, fromForegroundApp: false,
                                outcome: outcome, countedAgainstBudget: outcome != .noWidget, problem: problem,
                                cause: .policy, ranAt: outcome == .noWidget ? nil : now))
        return due
    }

    /// The shortest time from a timeline to its policy's reload.
    static let minimumPolicyInterval: TimeInterval = 300

    /// Runs the provider of `widget` in its own process, as the target it was
    /// installed as, to its end or ``widgetProviderTimeout``: the executable the
    /// test installed (kept in this process), never a path read from a file.
    private func runProvider(of widget: WidgetStore.InstalledWidget,
                             daemon: WidgetDaemon) throws -> (WidgetReload.Outcome, String?) {
        let (target, executable, timeout) = daemon.state.withLock { state in
            state.providerRefusal = nil
            return (state.targets[widget.kind], state.executables[widget.kind], state.providerTimeout)
        }
        guard let target, let executable else { return (.noWidget, nil) }
        daemon.launchingProvider(of: widget.kind)
        let process: LaunchedProcess
        do {
            process = try launch(executable, [], as: target,
                                 environment: [WidgetHost.kindKey: widget.kind, WidgetHost.familyKey: String(widget.family.rawValue)])
        } catch {
            _ = daemon.setProvider(nil)
            throw error
        }
        guard daemon.setProvider(process) else {
            process.kill()
            _ = process.wait(timeout: 10)
            return (.failed, "the device was removed while the provider started")
        }
        let outcome = process.wait(timeout: timeout)
        _ = daemon.setProvider(nil)
        if let refusal = daemon.state.withLock({ $0.providerRefusal }) { return (.failed, "\(refusal)") }
        return outcome.succeeded ? (.ran, nil) : (.failed, outcome.description)
    }
}
