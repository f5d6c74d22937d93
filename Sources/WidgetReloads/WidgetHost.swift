import AppGroupContainer
import Foundation

/// The entry point of a widget target's process on a simulated device, where
/// WidgetKit's extension host does not exist: a widget executable's `main.swift`
/// calls ``run(_:kind:)`` with its provider. The simulated device launches that
/// executable (as the target it installed it as) when it processes a reload of
/// `kind`; the provider's timeline goes to the device over the channel the device
/// made for this process, and the device keeps it only from the process it
/// launched for `kind` (`SimulatedDevice.widgetTimelines(ofKind:)` reads it).
public enum WidgetHost {
    /// The kind the device asks this process to reload.
    package static let kindKey = "APP_GROUP_WIDGET_KIND"
    /// The family of the widget, as WidgetFamily's raw value.
    package static let familyKey = "APP_GROUP_WIDGET_FAMILY"
    /// How long the provider has to call its completion (iOS gives a widget's
    /// provider a few seconds; this is generous for a loaded test machine).
    public static let deadline: TimeInterval = 30

    /// Calls `provider.getTimeline(in:completion:)` for the widget of `kind`,
    /// records the timeline, and exits: 0 when it was recorded, 1 when the
    /// provider did not complete by ``deadline`` or the record failed, 2 when the
    /// process was not launched by a device to reload `kind`.
    public static func run<Provider: TimelineProvider>(_ provider: Provider, kind: String) -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard environment[kindKey] == kind else {
            FileHandle.standardError.write(Data("WidgetHost: this process was launched to reload \(environment[kindKey].map { "\"\($0)\"" } ?? "no widget"), not \"\(kind)\"; a simulated device launches it when it processes a reload\n".utf8))
            exit(2)
        }
        let family = environment[familyKey].flatMap(Int.init).flatMap(WidgetFamily.init(rawValue:)) ?? .systemSmall
        let span = Tracing.begin(.widgetTimeline)
        let produced = Produced()
        provider.getTimeline(in: TimelineProviderContext(family: family), completion: produced.set)
        guard let timeline = produced.wait(seconds: deadline) as? Timeline<Provider.Entry> else {
            FileHandle.standardError.write(Data("WidgetHost: the provider of \"\(kind)\" did not call its completion within \(Int(deadline)) s\n".utf8))
            exit(1)
        }
        // The dates are on this process's clock; the device moves them onto its own
        // (ahead by the offset the test advanced it by), so "in an hour" here is an
        // hour from the device's now.
        let reloadDate: Date? = switch timeline.policy.kind {
        case .atEnd: timeline.entries.map(\.date).max()
        case .after(let date): date
        case .never: nil
        }
        let record = WidgetStore.TimelineRecord(kind: kind, family: family, entryDates: timeline.entries.map(\.date),
                                                entryDescriptions: timeline.entries.map { String(describing: $0) },
                                                policy: timeline.policy.description, producedAt: Date(), reloadDate: reloadDate)
        do throws(WidgetStoreError) {
            try hand(record)
        } catch {
            FileHandle.standardError.write(Data("WidgetHost: the timeline of \"\(kind)\" could not be recorded: \(error)\n".utf8))
            exit(1)
        }
        span?.end(kind, [("family", "\(family)"), ("entries", "\(timeline.entries.count)"), ("policy", timeline.policy.description)])
        exit(0)
    }

    /// Hands `record` to the device over this process's channel; without one (a
    /// process the device launched without it, which is not sandboxed), writes it
    /// to the device's records on the device's clock.
    private static func hand(_ record: WidgetStore.TimelineRecord) throws(WidgetStoreError) {
        let subject = WidgetStore.timelineSubject
        let line = try WidgetStore.line(record)
        if line.utf8.count > WidgetStore.timelineLimit {
            throw .timelineTooLarge(kind: record.kind, from: "this process", bytes: line.utf8.count, limit: WidgetStore.timelineLimit)
        }
        switch DeviceChannel.ask(subject, line) {
        case .accepted, .sent: return
        case .refused(let why): throw .deviceDidNotAnswer(request: subject, problem: "it refused: \(why)")
        case .unanswered(let why): throw .deviceDidNotAnswer(request: subject, problem: why)
        case .noChannel:
            let store = WidgetStore.current()
            try store.writeTimeline(record.moved(by: try store.clockOffset()))
        }
    }
}

/// A value set once by another thread, waited for with a deadline.
private final class Produced: @unchecked Sendable {
    typealias Value = Any
    private let condition = NSCondition()
    private var value: Value?

    func set(_ new: Value) {
        condition.lock(); defer { condition.unlock() }
        if value == nil { value = new }
        condition.broadcast()
    }

    func wait(seconds: TimeInterval) -> Value? {
        let limit = Date().addingTimeInterval(seconds)
        condition.lock(); defer { condition.unlock() }
        while value == nil, condition.wait(until: limit) {}
        return value
    }
}
