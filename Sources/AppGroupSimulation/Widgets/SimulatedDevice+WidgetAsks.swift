import AppGroupContainer
import Foundation
import WidgetReloads

// What a target may ask the device's WidgetKit over its channel, and only that:
// reload a kind (or all), list the installed widgets, and, from the process the
// device launched to reload a kind, that kind's timeline. The device names the
// requester from the channel, stamps the request with its own clock and decides
// itself whether the foreground app asked; the foreground app, the budget, the
// clock and the installed widgets are the test's to set, never a target's.
extension SimulatedDevice {
    /// The answer to a `widget.` ask from `asker`; a refusal is also kept for
    /// ``refusedWidgetRequests``.
    func answerWidgetAsk(_ subject: String, _ payload: String, from asker: DeviceAsker) -> DeviceAnswer {
        do throws(WidgetStoreError) {
            switch subject {
            case WidgetStore.reloadSubject: return try takeReload(payload, from: asker)
            case WidgetStore.configurationsSubject:
                let list = try widgetStore.readSettings().widgets.map { WidgetStore.Configuration(kind: $0.kind, family: $0.family) }
                return .ok(try WidgetStore.line(list))
            case WidgetStore.timelineSubject: return try takeTimeline(payload, from: asker)
            default:
                throw .requestRefused(request: subject, from: "\(asker)", problem:
                    "a target asks WidgetKit only to reload (\(WidgetStore.reloadSubject)), to list the widgets "
                    + "(\(WidgetStore.configurationsSubject)) or, launched by the device to reload a kind, to hand its timeline "
                    + "(\(WidgetStore.timelineSubject)); the clock, the budget, the foreground app and the installed widgets are the test's to set")
            }
        } catch {
            life.widgets.refuse(error)
            return .refused("\(error)")
        }
    }

    /// A reload request: the requester is the channel's target, the date the
    /// device's clock, and whether it came from the foreground app the device's record.
    private func takeReload(_ payload: String, from asker: DeviceAsker) throws(WidgetStoreError) -> DeviceAnswer {
        let subject = WidgetStore.reloadSubject
        guard let ask = WidgetStore.parse(WidgetStore.ReloadAsk.self, payload) else {
            throw .requestRefused(request: subject, from: "\(asker)", problem: "its payload is not {\"kind\": ...} as WidgetCenter sends it")
        }
        if let kind = ask.kind, let problem = WidgetStore.problem(kind: kind) {
            throw .requestRefused(request: subject, from: "\(asker)", problem: problem)
        }
        let state = try widgetStore.readSettings()
        let requester = asker.target.bundleIdentifier
        let request = WidgetStore.Request(kind: ask.kind, requester: requester, date: Date().addingTimeInterval(try deviceClockOffset()))
        let daemon = life.widgets
        let taken = daemon.state.withLock { daemon -> Bool in
            guard daemon.pending.lazy.filter({ $0.request.requester == requester }).count < WidgetDaemon.pendingLimit else { return false }
            daemon.nextPending += 1
            daemon.pending.append(.init(id: daemon.nextPending, request: request, fromForegroundApp: state.foregroundApp == requester))
            return true
        }
        guard taken else {
            throw .requestRefused(request: subject, from: "\(asker)", problem:
                "\(WidgetDaemon.pendingLimit) of its reload requests already wait for the device; ask again once they are handled")
        }
        // Other processes of the device hear that a reload was asked, as before a
        // target could post it; the daemon itself is woken directly.
        try? SignalTable.forDevice(root: ContainerRoot(root)).post(WidgetStore.reloadSignal)
        daemon.poke()
        return .ok("")
    }

    /// A timeline, taken only from the process the daemon launched to reload its
    /// kind, and only up to ``WidgetStore/timelineLimit`` bytes; its dates move
    /// onto the device's clock.
    private func takeTimeline(_ payload: String, from asker: DeviceAsker) throws(WidgetStoreError) -> DeviceAnswer {
        let daemon = life.widgets
        let launched = daemon.launchedKind(of: asker.processIdentifier)
        guard payload.utf8.count <= WidgetStore.timelineLimit else {
            let error = WidgetStoreError.timelineTooLarge(kind: launched ?? "(a kind it was not launched for)", from: "\(asker)",
                                                          bytes: payload.utf8.count, limit: WidgetStore.timelineLimit)
            if launched != nil { daemon.state.withLock { $0.providerRefusal = error } }
            throw error
        }
        guard let record = WidgetStore.parse(WidgetStore.TimelineRecord.self, payload) else {
            let error = WidgetStoreError.requestRefused(request: WidgetStore.timelineSubject, from: "\(asker)",
                                                        problem: "its payload is not a timeline as WidgetHost sends it")
            if launched != nil { daemon.state.withLock { $0.providerRefusal = error } }
            throw error
        }
        guard let launched, launched == record.kind else {
            throw .requestRefused(request: WidgetStore.timelineSubject, from: "\(asker)", problem:
                "it sent a timeline of \(AppGroupError.quote(record.kind)), but the device "
                + (launched.map { "launched it to reload \(AppGroupError.quote($0))" } ?? "did not launch it to reload any widget")
                + "; only the process the device launches for a reload of a kind hands that kind's timeline (WidgetHost.run)")
        }
        let offset = try deviceClockOffset()
        var kept = record
        kept.producedAt = Date()
        try widgetStore.writeTimeline(kept.moved(by: offset))
        return .ok("")
    }
}
