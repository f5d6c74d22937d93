import Foundation

/// A lifecycle request the device refused or could not carry out: it names the
/// request, the target and process, the state the target is in, and what to do.
public struct LifecycleError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Problem: Sendable, Hashable {
        /// The target has ended: nothing more can happen to it.
        case ended
        /// iOS never makes this move from the state the target is in (for example
        /// resume before suspend, or suspend a target in the foreground).
        case order
        /// The process was not launched as a target of this device (no lifecycle for it).
        case notATarget
        /// The process did not acknowledge a notification before the deadline.
        case noAcknowledgement(notification: String, seconds: Double)
        /// The kernel did not show the change (stopped, continued) before the deadline.
        case noEffect(seconds: Double)
        /// The target wrote a line longer than the channel takes (`limit` bytes) on
        /// its lifecycle channel (`bytes` of it had come when it passed the limit);
        /// the device dropped it and read on.
        case oversizedMessage(bytes: Int, limit: Int)
    }
    /// What went wrong.
    public let problem: Problem
    /// The request: `suspend`, `resume`...
    public let request: String
    /// The state the target was in when asked.
    public let state: LifecycleState?
    /// The process, for messages.
    public let process: String

    public var description: String {
        let where_ = state.map { " (it is \($0))" } ?? ""
        switch problem {
        case .ended:
            return "cannot \(request) \(process)\(where_): it has ended; launch it again, or look at device.terminations for how it ended"
        case .order:
            return "cannot \(request) \(process)\(where_): iOS never does that from this state; "
                + "the order is moveToBackground, suspend, resume (or terminate, jetsam at any time)"
        case .notATarget:
            return "cannot \(request) \(process): it was not launched as a target of this device (launch it with device.launch(_:_:as:) and a target)"
        case .noAcknowledgement(let name, let seconds):
            return "\(process)\(where_) did not acknowledge \(name) within \(seconds) s while asked to \(request): "
                + "its observers of that notification did not return (or it does not link the package)"
        case .noEffect(let seconds):
            return "\(process)\(where_): the kernel did not show the \(request) within \(seconds) s"
        case .oversizedMessage(let bytes, let limit):
            return "\(process) wrote a line longer than \(limit) bytes on its lifecycle channel (\(bytes) bytes of it when it passed the limit): "
                + "the device dropped it and read on; only the package's own listener should write to that descriptor "
                + "(APPGROUP_LIFECYCLE_FD), one short line per message"
        }
    }
}
