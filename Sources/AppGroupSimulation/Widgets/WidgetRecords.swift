import Foundation
import WidgetReloads

/// A timeline a widget's provider produced on a simulated device.
public struct WidgetTimeline: Sendable, CustomStringConvertible {
    /// One entry: its date (on the device's clock) and `String(describing:)` of the entry.
    public struct Entry: Sendable, Hashable {
        public let date: Date
        public let description: String
    }
    /// The widget kind.
    public let kind: String
    /// The family it was produced for.
    public let family: WidgetFamily
    /// The entries, in order.
    public let entries: [Entry]
    /// The reload policy: `atEnd`, `never` or `after(<seconds since 1970>)` (the
    /// date as the provider gave it, on its process's clock).
    public let policy: String
    /// When the policy asks for the next timeline, on the device's clock: the
    /// last entry's date (`.atEnd`) or the policy's date (`.after(_:)`); nil for `.never`.
    public let reloadDate: Date?
    /// When it was produced, on the device's clock.
    public let producedAt: Date

    public var description: String {
        "\(kind) (\(family)): \(entries.map(\.description)) policy \(policy)"
    }
}

/// What a simulated device did with one reload of one widget kind: a request an
/// app made, a deferred request run once the budget allowed it, or a reload the
/// timeline's policy asked for.
public struct WidgetReload: Codable, Sendable, Hashable, CustomStringConvertible {
    /// What became of the reload.
    public enum Outcome: String, Codable, Sendable, Hashable {
        /// The widget's provider ran and its timeline was recorded.
        case ran
        /// Beyond the daily budget: not run now. The device runs the kind's
        /// deferred reloads once (a record of cause ``WidgetReload/Cause/deferred``) when its
        /// clock reaches a time within the budget, as WidgetKit does.
        case deferred
        /// No widget of that kind is installed on the device.
        case noWidget
        /// The widget's process ran but recorded no timeline (see `problem`).
        case failed
    }
    /// Why the reload happened.
    public enum Cause: String, Codable, Sendable, Hashable {
        /// An app called `reloadTimelines(ofKind:)` or `reloadAllTimelines()`.
        case request
        /// Deferred reloads of the kind, run once when the budget allowed it;
        /// ``WidgetReload/date`` is when the first of them was asked.
        case deferred
        /// The last timeline's policy (`.atEnd`, `.after(_:)`) came due on the
        /// device's clock; ``WidgetReload/date`` is the policy's date.
        case policy
    }
    /// The bundle identifier of the target whose process asked
    /// (``systemRequester`` for a reload the timeline's policy asked for).
    public let requester: String
    /// The widget kind (one record per kind for `reloadAllTimelines()`).
    public let kind: String
    /// When it was asked (or came due), on the device's clock.
    public let date: Date
    /// True when the requester was the app in the foreground (free of budget).
    public let fromForegroundApp: Bool
    /// What became of it.
    public let outcome: Outcome
    /// True when it counted against the kind's daily budget.
    public let countedAgainstBudget: Bool
    /// Why it failed, for ``Outcome/failed``.
    public let problem: String?
    /// Why it happened.
    public let cause: Cause
    /// When the provider ran, on the device's clock; nil when it did not run.
    public let ranAt: Date?

    /// The requester of the reloads WidgetKit itself asks for (timeline policies).
    public static let systemRequester = "WidgetKit"

    init(requester: String, kind: String, date: Date, fromForegroundApp: Bool, outcome: Outcome,
         countedAgainstBudget: Bool, problem: String? = nil, cause: Cause, ranAt: Date?) {
        (self.requester, self.kind, self.date, self.fromForegroundApp) = (requester, kind, date, fromForegroundApp)
        (self.outcome, self.countedAgainstBudget, self.problem, self.cause, self.ranAt) = (outcome, countedAgainstBudget, problem, cause, ranAt)
    }

    public var description: String {
        let ran = ranAt.map { $0 == date ? "" : " ran at \($0)" } ?? ""
        return "\(requester) reload \(kind) (\(cause.rawValue)) at \(date): \(outcome.rawValue)\(ran)"
            + "\(countedAgainstBudget ? " (counted)" : "")\(problem.map { ": \($0)" } ?? "")"
    }
}
