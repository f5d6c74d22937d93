import AppGroupContainer
import Foundation

/// Asks WidgetKit to reload widgets' timelines, as Apple's `WidgetCenter`.
///
/// A request is recorded in the device's WidgetKit records and posted on the
/// device's signal table; the simulated device processes it (its budget decides
/// whether it runs) and runs the widget's provider in the widget's own process.
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
            let state = try WidgetStore.current().readState()
            completion(.success(state.widgets.map { WidgetInfo(kind: $0.kind, family: $0.family) }))
        } catch {
            completion(.failure(error))
        }
    }

    /// The widgets configured on the device (kind and family).
    /// - Throws: ``WidgetStoreError`` when the device's records cannot be read.
    public func currentConfigurations() async throws -> [WidgetInfo] {
        try WidgetStore.current().readState().widgets.map { WidgetInfo(kind: $0.kind, family: $0.family) }
    }

    private func request(kind: String?) {
        let store = WidgetStore.current()
        do throws(WidgetStoreError) {
            let state = try store.readState()
            let requester = Self.requester()
            let request = WidgetStore.Request(kind: kind, requester: requester,
                                              date: Date().addingTimeInterval(state.clockOffset),
                                              fromForegroundApp: state.foregroundApp == requester)
            try store.record(request)
        } catch {
            Diagnostics.warn("WidgetCenter: the reload request could not be recorded, so no widget will reload: \(error)")
        }
    }

    /// The bundle identifier of this process's target, as the device launched it.
    static func requester(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let bundle = environment[Entitlements.EnvironmentKey.bundleIdentifier], !bundle.isEmpty { return bundle }
        if let app = environment[Entitlements.EnvironmentKey.applicationIdentifier], let dot = app.firstIndex(of: ".") {
            return String(app[app.index(after: dot)...])
        }
        return "unknown (\(ProcessInfo.processInfo.processName))"
    }
}
