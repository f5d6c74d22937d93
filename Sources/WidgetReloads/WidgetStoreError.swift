import AppGroupContainer
import Foundation

/// What went wrong with WidgetKit's records on a simulated device.
public enum WidgetStoreError: Error, CustomStringConvertible, Sendable {
    /// A file of the device's WidgetKit records could not be read or written.
    case files(AppGroupError)
    /// A record is not what this package writes.
    case malformed(path: String, problem: String)
    /// A widget kind that cannot be used.
    case invalidKind(String, problem: String)
    /// A widget's process did not produce a timeline.
    case widgetFailed(kind: String, problem: String)
    /// The device did not finish handling the reloads asked so far within `seconds`.
    case waitTimedOut(seconds: TimeInterval, pending: Int)
    /// In a target's process: the device did not take `request` (a subject such as
    /// `widget.reload`), or its answer could not be read.
    case deviceDidNotAnswer(request: String, problem: String)
    /// The device refused what a target's process asked on its channel: `request`
    /// (the subject), `from` (the target's name and process), why.
    case requestRefused(request: String, from: String, problem: String)
    /// A widget's provider handed the device a timeline larger than `limit` bytes.
    case timelineTooLarge(kind: String, from: String, bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .files(let error): "WidgetKit records: \(error)"
        case let .malformed(path, problem): "WidgetKit record \(path): \(problem)"
        case let .invalidKind(kind, problem): "widget kind \(AppGroupError.quote(kind)): \(problem); use the kind string your widget declares"
        case let .widgetFailed(kind, problem): "widget \(AppGroupError.quote(kind)) produced no timeline: \(problem)"
        case let .waitTimedOut(seconds, pending):
            "the device did not finish its widget reloads within \(Int(seconds)) s (\(pending) requests still pending); "
                + "a provider may hang: lower the device's widgetProviderTimeout or wait longer"
        case let .deviceDidNotAnswer(request, problem):
            "WidgetKit: the device did not take \(AppGroupError.quote(request)): \(problem); "
                + "a target reaches WidgetKit only when a simulated device launched it"
        case let .requestRefused(request, from, problem):
            "WidgetKit refused \(AppGroupError.quote(request)) from \(from): \(problem)"
        case let .timelineTooLarge(kind, from, bytes, limit):
            "WidgetKit refused the timeline of \(AppGroupError.quote(kind)) from \(from): it is \(bytes) bytes of JSON; "
                + "the limit is \(limit) (WidgetStore.timelineLimit); give the timeline fewer or shorter entries"
        }
    }
}
