#if !canImport(Darwin)
import AppGroupContainer
import Foundation
import NotificationDelivery

// Pushes: the test sends an APNs payload to an app; with `mutable-content: 1` the
// device launches the app's notification service extension (sandboxed, as the
// extension target) with the request, takes the content its handler hands over the
// channel (only from that extension, only while the push is in flight), and
// delivers it, or the original content when none came in time, as iOS does.
extension SimulatedDevice {
    /// Installs `target` (a notification service extension of its app) with the
    /// executable product `name`, whose `main.swift` calls `ExtensionMain.run`
    /// with the principal class.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` when it is not built.
    public func installNotificationServiceExtension(_ target: SimulatedTarget, built name: String) throws {
        let executable = try builtExecutable(named: name, for: target)
        PushRegistry.shared.withLock { $0.extensions[root.path + "\n" + Self.notificationApp(of: target)] = (target, executable) }
    }

    /// How long a service extension has to call its content handler before
    /// `serviceExtensionTimeWillExpire()` (iOS: about 30 s; tests shorten it).
    public var notificationServiceTimeLimit: TimeInterval {
        get { PushRegistry.shared.withLock { $0.timeLimits[root.path] } ?? 30 }
        set { PushRegistry.shared.withLock { $0.timeLimits[root.path] = max(0, newValue) } }
    }

    /// Delivers a remote notification with APNs' `payload` to `app`: with
    /// `aps.mutable-content` 1 and an alert, its installed service extension runs
    /// first and what its content handler hands is delivered. Waits for the
    /// extension (at most its time limit and a few seconds more).
    /// - Throws: `NotificationStoreError` (NotificationDelivery) for a payload APNs
    ///   would refuse, or records that cannot be written.
    public func push(_ payload: [String: Any], to app: SimulatedTarget) async throws -> PushOutcome {
        let appIdentifier = Self.notificationApp(of: app)
        let made = try SimulationError.passingUp { try NotificationStore.request(fromPush: payload, identifier: UUID().uuidString) }
        let installed = PushRegistry.shared.withLock { $0.extensions[root.path + "\n" + appIdentifier] }
        let hasAlert = !(made.request.content.title.isEmpty && made.request.content.body.isEmpty && made.request.content.subtitle.isEmpty)
        guard made.mutable, hasAlert, let (target, executable) = installed else {
            let delivered = try SimulationError.passingUp { try notificationStore.deliver(made.request, app: appIdentifier) }
            return PushOutcome(request: made.request, delivered: delivered ? made.request.content : nil, extensionRan: false, findings: [], process: nil)
        }
        let limit = notificationServiceTimeLimit
        let key = root.path + "\n" + target.bundleIdentifier
        let flight = PushFlight()
        // One push at a time per extension: the device takes content only from the
        // extension of the push in flight.
        await PushRegistry.shared.waitToFly(key, flight)
        defer { PushRegistry.shared.land(key) }
        let environment = try SimulationError.passingUp { try NotificationStore.serviceEnvironment(made.request, timeLimit: limit) }
        let process = try launch(executable, [], as: target, environment: environment)
        let outcome = await process.outcome(timeout: limit + NotificationServiceHost.graceAfterExpiry + 10)
        let handed = flight.handed
        var findings: [PushFinding] = []
        var content = made.request.content
        if let first = handed.first {
            switch first {
            case .success(let request): content = request.content
            case .failure(let error): findings.append(.contentRefused("\(error)"))
            }
            if handed.count > 1 { findings.append(.contentHandlerCalledMoreThanOnce(times: handed.count)) }
        } else if outcome.timedOut || outcome.status == 3 {
            findings.append(.contentHandlerNeverCalled(timeLimit: limit))
        } else {
            findings.append(.extensionEnded(status: outcome.status, signal: outcome.signal))
        }
        let request = UNNotificationRequest(identifier: made.request.identifier, content: content, trigger: made.request.trigger)
        let delivered = try SimulationError.passingUp { try notificationStore.deliver(request, app: appIdentifier) }
        return PushOutcome(request: made.request, delivered: delivered ? content : nil, extensionRan: true, findings: findings, process: outcome)
    }

    /// A content handed by `asker`: taken only from the extension of the push in flight.
    func takeServiceContent(_ payload: String, from asker: DeviceAsker) -> DeviceAnswer {
        let key = root.path + "\n" + asker.target.bundleIdentifier
        guard asker.target.kind == .notificationExtension, let flight = PushRegistry.shared.withLock({ $0.flights[key] }) else {
            return .refused("the device launched \(asker) for no push; only the service extension of the push in flight hands its content")
        }
        flight.hand(NotificationStore.handedRequest(payload))
        return .ok("")
    }
}

/// The contents a push's extension handed, in order.
final class PushFlight: @unchecked Sendable {
    // @unchecked: `contents` is only touched with `lock` held.
    private let lock = NSLock()
    private var contents: [Result<UNNotificationRequest, NotificationStoreError>] = []
    var handed: [Result<UNNotificationRequest, NotificationStoreError>] { lock.lock(); defer { lock.unlock() }; return contents }
    func hand(_ content: Result<UNNotificationRequest, NotificationStoreError>) {
        lock.lock(); defer { lock.unlock() }
        if contents.count < 100 { contents.append(content) }
    }
}

/// The devices' installed service extensions, time limits and pushes in flight
/// (keyed by device root), in the test process.
final class PushRegistry: @unchecked Sendable {
    // @unchecked: `state` is only touched with `lock` held.
    struct State {
        var extensions: [String: (SimulatedTarget, URL)] = [:]
        var timeLimits: [String: TimeInterval] = [:]
        var flights: [String: PushFlight] = [:]
    }
    static let shared = PushRegistry()
    private let lock = NSLock()
    private var state = State()

    func withLock<T>(_ body: (inout State) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(&state)
    }

    /// Waits until no push of `key` is in flight, then makes `flight` the one.
    func waitToFly(_ key: String, _ flight: PushFlight) async {
        while !withLock({ state -> Bool in
            guard state.flights[key] == nil else { return false }
            state.flights[key] = flight
            return true
        }) {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    func land(_ key: String) { _ = withLock { $0.flights.removeValue(forKey: key) } }
}
#endif
