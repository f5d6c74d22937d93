import Foundation
import WidgetReloads

/// A timeline a widget's provider produced on a simulated device.
public struct WidgetTimeline: Sendable, CustomStringConvertible {
    /// One entry: its date and `String(describing:)` of the entry.
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
    /// The reload policy: `atEnd`, `never` or `after(<seconds since 1970>)`.
    public let policy: String
    /// When it was produced, on the device's clock.
    public let producedAt: Date

    public var description: String {
        "\(kind) (\(family)): \(entries.map(\.description)) policy \(policy)"
    }
}

/// What a simulated device did with one reload request, for one widget kind.
public struct WidgetReload: Codable, Sendable, Hashable, CustomStringConvertible {
    /// What became of the request.
    public enum Outcome: String, Codable, Sendable, Hashable {
        /// The widget's provider ran and its timeline was recorded.
        case ran
        /// Beyond the daily budget: not run (WidgetKit would run it later; here
        /// it stays deferred, and a later request within the budget runs).
        case deferred
        /// No widget of that kind is installed on the device.
        case noWidget
        /// The widget's process ran but recorded no timeline (see `problem`).
        case failed
    }
    /// The bundle identifier of the target whose process asked.
    public let requester: String
    /// The widget kind (one record per kind for `reloadAllTimelines()`).
    public let kind: String
    /// When it was asked, on the device's clock.
    public let date: Date
    /// True when the requester was the app in the foreground (free of budget).
    public let fromForegroundApp: Bool
    /// What became of it.
    public let outcome: Outcome
    /// True when it counted against the kind's daily budget.
    public let countedAgainstBudget: Bool
    /// Why it failed, for ``Outcome/failed``.
    public let problem: String?

    public var description: String {
        "\(requester) reload \(kind) at \(date): \(outcome.rawValue)\(countedAgainstBudget ? " (counted)" : "")\(problem.map { ": \($0)" } ?? "")"
    }
}
