import AppGroupContainer
import Foundation

/// The target's half of a push handled by a notification service extension (the
/// device's half is `SimulatedDevice.push(_:to:)`): the device launches the
/// extension's executable with the request in its environment; this makes the
/// principal object's `didReceive(_:withContentHandler:)` run, hands each content
/// the handler gets to the device over the process's channel, and calls
/// `serviceExtensionTimeWillExpire()` when the time limit comes, as iOS does.
/// An extension's `main.swift` reaches it through `ExtensionMain.run` (AppGroupSimulation).
package enum NotificationServiceHost {
    /// The request, as the JSON of the records.
    package static let requestKey = "APP_GROUP_NOTIFICATION_REQUEST"
    /// Seconds the extension has to call its content handler.
    package static let timeLimitKey = "APP_GROUP_NOTIFICATION_TIME_LIMIT"
    /// The subject under which the extension hands a content to deliver.
    package static let contentSubject = "notifications.service-content"
    /// How long the process lives after `serviceExtensionTimeWillExpire()` (iOS
    /// then ends the extension; the device kills it a little later still).
    package static let graceAfterExpiry: TimeInterval = 2

    /// Whether the device launched this process to handle a push.
    package static var hasRequest: Bool { ProcessInfo.processInfo.environment[requestKey] != nil }

    /// Runs `principal` on the request the device launched this process with, and exits.
    @MainActor
    package static func start(_ principal: UNNotificationServiceExtension) -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment[requestKey] else {
            fail(64, "this process was not launched by a simulated device to handle a push (\(requestKey) is not set); push with SimulatedDevice.push(_:to:)")
        }
        guard let stored = try? JSONDecoder().decode(StoredRequest.self, from: Data(text.utf8)) else {
            fail(65, "the request the device launched this process with is not the JSON this package writes")
        }
        let limit = environment[timeLimitKey].flatMap(TimeInterval.init).map { max(0, min($0, 3_600)) } ?? 30
        let handled = HandlerCalls()
        let shared = SharedPrincipal(principal)
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            // On a thread of its own, as iOS calls it: the last chance to hand the best attempt.
            shared.principal.serviceExtensionTimeWillExpire()
            DispatchQueue.global().asyncAfter(deadline: .now() + graceAfterExpiry) { exit(handled.count > 0 ? 0 : 3) }
        }
        principal.didReceive(stored.request) { content in
            let calls = handled.increment()
            hand(content, identifier: stored.identifier, trigger: stored.trigger)
            // iOS ends the extension once it handed its content; a second call made
            // right after still reaches the device, which reports it.
            if calls == 1 { DispatchQueue.global().asyncAfter(deadline: .now() + 1) { exit(0) } }
        }
        dispatchMain()
    }

    /// Hands `content` to the device; without a channel, prints it.
    private static func hand(_ content: UNNotificationContent, identifier: String, trigger: StoredTrigger?) {
        let request = UNNotificationRequest(identifier: identifier, content: content, trigger: nil)
        let line: String
        do {
            line = String(decoding: try JSONEncoder().encode(try StoredRequest(request)), as: UTF8.self)
        } catch {
            FileHandle.standardError.write(Data("NotificationServiceHost: the content cannot be delivered: \(error)\n".utf8))
            return
        }
        switch DeviceChannel.ask(contentSubject, line) {
        case .accepted, .sent: return
        case .noChannel: print(line)
        case .refused(let why), .unanswered(let why):
            FileHandle.standardError.write(Data("NotificationServiceHost: the device did not take the content: \(why)\n".utf8))
        }
    }

    static func fail(_ status: Int32, _ message: String) -> Never {
        FileHandle.standardError.write(Data("NotificationServiceHost: \(message)\n".utf8))
        exit(status)
    }
}

/// How many times the content handler was called.
private final class HandlerCalls: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

/// The principal object, reached from the expiry's thread as iOS reaches it.
private final class SharedPrincipal: @unchecked Sendable {
    // @unchecked: iOS calls serviceExtensionTimeWillExpire on a thread of its own
    // while didReceive's work may run; the extension's code guards its own state.
    let principal: UNNotificationServiceExtension
    init(_ principal: UNNotificationServiceExtension) { self.principal = principal }
}

// MARK: The device's side of the wire

extension NotificationStore {
    /// The request a push payload makes (APNs' `aps` dictionary and custom keys).
    /// - Throws: ``NotificationStoreError/invalidPayload(_:)`` for a payload APNs
    ///   would refuse or that carries no alert.
    package static func request(fromPush payload: [String: Any], identifier: String) throws(NotificationStoreError) -> (request: UNNotificationRequest, mutable: Bool) {
        guard JSONSerialization.isValidJSONObject(payload),
              let json = try? JSONSerialization.data(withJSONObject: payload) else {
            throw .invalidPayload("it is not a JSON object (APNs payloads are JSON)")
        }
        if json.count > 4_096 { throw .invalidPayload("it is \(json.count) bytes of JSON; APNs refuses a payload over 4,096 bytes") }
        guard let aps = payload["aps"] as? [String: Any] else { throw .invalidPayload("it has no \"aps\" dictionary") }
        let content = UNMutableNotificationContent()
        switch aps["alert"] {
        case let text as String: content.body = text
        case let alert as [String: Any]:
            content.title = alert["title"] as? String ?? ""
            content.subtitle = alert["subtitle"] as? String ?? ""
            content.body = alert["body"] as? String ?? ""
        case nil: break
        default: throw .invalidPayload("its \"aps.alert\" is neither a string nor a dictionary")
        }
        if let badge = aps["badge"] {
            guard let number = badge as? Int else { throw .invalidPayload("its \"aps.badge\" is not a number") }
            content.badge = NSNumber(value: number)
        }
        if let sound = aps["sound"] as? String { content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
        content.threadIdentifier = aps["thread-id"] as? String ?? ""
        content.categoryIdentifier = aps["category"] as? String ?? ""
        content.targetContentIdentifier = aps["target-content-id"] as? String
        var info: [AnyHashable: Any] = [:]
        for (key, value) in payload { info[AnyHashable(key)] = value }
        content.userInfo = info
        let mutable = (aps["mutable-content"] as? Int) == 1
        return (UNNotificationRequest(identifier: identifier, content: content, trigger: UNPushNotificationTrigger()), mutable)
    }

    /// The environment that hands `request` to a service extension.
    package static func serviceEnvironment(_ request: UNNotificationRequest, timeLimit: TimeInterval) throws(NotificationStoreError) -> [String: String] {
        do {
            let text = String(decoding: try JSONEncoder().encode(try StoredRequest(request)), as: UTF8.self)
            return [NotificationServiceHost.requestKey: text, NotificationServiceHost.timeLimitKey: "\(timeLimit)"]
        } catch {
            throw .invalidPayload("\(error)")
        }
    }

    /// The request a service extension handed (one line of JSON), or why not.
    package static func handedRequest(_ payload: String) -> Result<UNNotificationRequest, NotificationStoreError> {
        guard payload.utf8.count <= CenterRecords.requestLimit * 2,
              let stored = try? JSONDecoder().decode(StoredRequest.self, from: Data(payload.utf8)) else {
            return .failure(.malformed(path: "(a content handed by a service extension)",
                                       problem: "it is not a request as this package sends it, or larger than \(CenterRecords.requestLimit * 2) bytes"))
        }
        return .success(stored.request)
    }
}
