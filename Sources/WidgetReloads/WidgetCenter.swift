import AppGroupContainer
import Foundation

/// Asks WidgetKit to reload widgets' timelines, as Apple's `WidgetCenter`.
///
/// In a target's process the request goes to the simulated device over the
/// channel the device made for that process (as an app reaches chronod over XPC
/// on iOS): the device knows who asks, decides whether the foreground app asked
/// and whether its budget lets the reload run, and runs the widget's provider in
/// the widget's own process. A process without a channel (the test process, a
/// program launched without a target) is not sandboxed and records its request
/// in the device's WidgetKit records itself.
public final class WidgetCenter: @unchecked Sendable {
    /// The center of this process.
    public static let shared = WidgetCenter()

    private init() {}

    /// Asks for a new timeline of every widget of `kind`.
    public func reloadTimelines(ofKind kind: String) {
        if let problem = WidgetStore.problem(kind: kind) {
            Diagnostics.warn("WidgetCenter.reloadTimelines(ofKind:): \(problem); nothing was reloaded")
            return
        }
        request(kind: kind)
    }

    /// Asks for a new timeline of every widget of this app's.
    public func reloadAllTimelines() { request(kind: nil) }

    /// The widgets configured on the device (kind and family).
    public func getCurrentConfigurations(_ completion: @escaping (Result<[WidgetInfo], any Error>) -> Void) {
        do {
            completion(.success(try configurations()))
        } catch {
            completion(.failure(error))
        }
    }

    /// The widgets configured on the device (kind and family).
    /// - Throws: ``WidgetStoreError`` when the device's records cannot be read or
    ///   the device did not answer.
    public func currentConfigurations() async throws -> [WidgetInfo] { try configurations() }

    private func configurations() throws(WidgetStoreError) -> [WidgetInfo] {
        let subject = WidgetStore.configurationsSubject
        switch DeviceChannel.ask(subject, "{}") {
        case .noChannel:
            return try WidgetStore.current().readSettings().widgets.map { WidgetInfo(kind: $0.kind, family: $0.family) }
        case .accepted(let text):
            guard let list = WidgetStore.parse([WidgetStore.Configuration].self, text) else {
                throw .deviceDidNotAnswer(request: subject, problem: "its answer is not the list of widgets this package sends")
            }
            return list.map { WidgetInfo(kind: $0.kind, family: $0.family) }
        case .refused(let why): throw .deviceDidNotAnswer(request: subject, problem: "it refused: \(why)")
        case .unanswered(let why): throw .deviceDidNotAnswer(request: subject, problem: why)
        case .sent: throw .deviceDidNotAnswer(request: subject, problem: "asked from a lifecycle handler, which cannot wait for an answer")
        }
    }

    private func request(kind: String?) {
        let span = Tracing.begin(.widgetReload)
        defer { span?.end(kind ?? "all kinds", [("requester", Self.requester())]) }
        do throws(WidgetStoreError) {
            switch DeviceChannel.ask(WidgetStore.reloadSubject, try WidgetStore.line(WidgetStore.ReloadAsk(kind: kind))) {
            case .accepted, .sent: return
            case .noChannel: break
            case .refused(let why): throw .deviceDidNotAnswer(request: WidgetStore.reloadSubject, problem: "it refused: \(why)")
            case .unanswered(let why): throw .deviceDidNotAnswer(request: WidgetStore.reloadSubject, problem: why)
            }
            // No channel: an unsandboxed process, which records its request itself.
            let store = WidgetStore.current()
            try store.record(WidgetStore.Request(kind: kind, requester: Self.requester(), date: try store.now()))
        } catch {
            Diagnostics.warn("WidgetCenter: the reload request could not be recorded, so no widget will reload: \(error)")
        }
    }

    /// The bundle identifier of this process's target, as its environment says
    /// (for a process without a channel only: the device names a target's requests).
    static func requester(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let bundle = environment[Entitlements.EnvironmentKey.bundleIdentifier], !bundle.isEmpty { return bundle }
        if let app = environment[Entitlements.EnvironmentKey.applicationIdentifier], let dot = app.firstIndex(of: ".") {
            return String(app[app.index(after: dot)...])
        }
        return "unknown (\(ProcessInfo.processInfo.processName))"
    }
}
