import AppGroupSystem
import Foundation

// The lifecycle in a traced device's timeline. The device records it, on each
// target's own track (`Tracing.Track`): a stopped or killed process records
// nothing, and a killed one never writes its trace file, so only the device can
// tell that a target was suspended, or why it ended.
extension LifecycleConnection {
    /// The target's track in the trace: named as its own trace file names it.
    var traceTrack: Tracing.Track { Tracing.Track(pid: pid, name: target.name) }

    /// Begins the record of a lifecycle request (`request`: "background",
    /// "suspend"...); nil when tracing is off.
    func traceRequest(_ request: String) -> LifecycleRequestTrace? {
        guard let span = Tracing.begin(.lifecycle, on: traceTrack) else { return nil }
        return LifecycleRequestTrace(span: span, request: request, before: currentState, connection: self)
    }

    /// Records that background activity `id` began (called with `condition` locked).
    func traceActivityBegan(_ id: Int) {
        if let span = Tracing.begin(.backgroundTask, on: traceTrack) { tracedActivities[id] = span }
    }

    /// Records that background activity `id` ended, `how` (called with `condition` locked).
    func traceActivityEnded(_ id: Int, reason: String, how: String) {
        tracedActivities.removeValue(forKey: id)?.end(reason, [("activity", "\(id)"), ("ended", how), ("data container", home)])
    }

    /// Records the end of the target's process: an instant on its track saying why,
    /// with the locks it held (0xdead10cc), and the activities it still ran.
    func traceEnd(_ report: TerminationReport) {
        guard Tracing.isOn else { return }
        condition.lock()
        for (id, activity) in activities { traceActivityEnded(id, reason: activity.reason, how: "the process ended") }
        condition.unlock()
        var args = [("reason", report.reason.description), ("state", report.state.description), ("data container", home)]
        if let code = report.reason.code { args.append(("code", code)) }
        if !report.heldLocks.isEmpty { args.append(("locks", report.heldLocks.map(\.description).joined(separator: "; "))) }
        Tracing.mark(.termination, report.reason.code.map { "\($0): \(report.reason)" } ?? "\(report.reason)", args, on: traceTrack)
    }
}

/// A lifecycle request under way, in the trace: from the request to its effect
/// (the target's acknowledgement, its stop, its end).
struct LifecycleRequestTrace {
    let span: Tracing.Span
    let request: String
    let before: LifecycleState
    let connection: LifecycleConnection

    /// Records the request, with the state it left the target in.
    func end() {
        span.end(request, [("state before", before.description), ("state after", connection.currentState.description),
                           ("data container", connection.home)])
    }
}
