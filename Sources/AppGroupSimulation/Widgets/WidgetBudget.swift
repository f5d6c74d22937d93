import Foundation

/// A widget kind's daily reload budget, read from the device's reload log: the
/// counted runs of the last 24 hours of the device's clock (WidgetKit's window
/// slides with the user's day; here it slides with the clock).
struct WidgetBudget {
    /// The reloads a kind may run per window when not asked by the foreground app.
    let dailyBudget: Int
    /// The device's reload log, oldest first.
    let log: [WidgetReload]
    static let window: TimeInterval = 86_400

    /// When the counted runs of `kind` that are still in the window at `date` ran.
    private func runs(of kind: String, at date: Date) -> [Date] {
        log.filter { $0.kind == kind && $0.countedAgainstBudget }.compactMap(\.ranAt)
            .filter { $0 > date.addingTimeInterval(-Self.window) }.sorted()
    }

    /// True when a counted reload of `kind` may run at `date`.
    func allows(_ kind: String, at date: Date) -> Bool { runs(of: kind, at: date).count < dailyBudget }

    /// The first date from `date` on at which a counted reload of `kind` may
    /// run: when enough runs have left the window; nil with a budget of zero.
    func nextAllowed(_ kind: String, from date: Date) -> Date? {
        guard dailyBudget > 0 else { return nil }
        let counted = runs(of: kind, at: date)
        guard counted.count >= dailyBudget else { return date }
        return counted[counted.count - dailyBudget].addingTimeInterval(Self.window)
    }

    /// The first deferred reload of `kind` that no run followed (any number of
    /// them are run as one, as WidgetKit coalesces reloads); nil when none waits.
    func waitingDeferral(of kind: String) -> WidgetReload? {
        var first: WidgetReload?
        for record in log where record.kind == kind {
            if record.outcome == .deferred {
                if first == nil { first = record }
            } else if record.ranAt != nil {
                first = nil
            }
        }
        return first
    }
}
