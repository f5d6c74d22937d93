import Foundation

/// The Swift half of a spawned target's lifecycle listener (the C half, which
/// starts before `main` and reads the channel, is CAppGroupSys's lifecycle.c).
///
/// Lines from the device are `<sequence> <command> <argument>`:
/// - `post <name>`: posts a notification of that name on
///   `NotificationCenter.default` (iOS's UIApplication and extension-host names);
///   observers run on the listener's thread before the line is acknowledged, as
///   on iOS the system waits for the app's handlers before it goes on.
/// - `expire <id>`: the background activity `id` ran out of time; its expiration
///   handler runs before the acknowledgement, so the device suspends only after it.
/// - `answer <id> ...`: the device's answer to a request (``DeviceRequests``).
///
/// - `reply <id> ok|refused <text>`: the device's answer to an ask (LifecycleAsk.swift).
/// - `answer <id> ok|error <text>`: the device's answer to a request (``DeviceRequests``).
///
/// Lines to the device: `hello <pid>` (from C), `ack <sequence>`,
/// `begin <id> <reason>` / `end <id>` around a background activity,
/// `ask <id> <subject> <payload>` (LifecycleAsk.swift, WidgetKit's asks) and
/// `request <id> <kind> <payload>` (``DeviceRequests``, the keychain's prompts).
package enum LifecycleListener {
    private struct Activities {
        var next = 1
        var expirationHandlers: [Int: @Sendable () -> Void] = [:]
    }
    private static let activities = Locked(Activities())

    /// Whether this process was started by a simulated device with a lifecycle channel.
    package static var isListening: Bool { ProcessSystemCalls.lifecycleListening }

    /// Tells the device that background work began (it will not suspend this
    /// process until ``endActivity(_:)`` or until the work expires, when
    /// `expire` runs first). Nil when the process has no channel.
    package static func beginActivity(reason: String, expire: @escaping @Sendable () -> Void) -> Int? {
        guard isListening else { return nil }
        let id = activities.withLock { state -> Int in
            defer { state.next += 1 }
            state.expirationHandlers[state.next] = expire
            return state.next
        }
        let oneLine = reason.replacingOccurrences(of: "\n", with: " ")
        do {
            try ProcessSystemCalls.sendLifecycleLine("begin \(id) \(oneLine)")
        } catch {
            _ = activities.withLock { $0.expirationHandlers.removeValue(forKey: id) }
            return nil
        }
        return id
    }

    /// Tells the device that background work `id` ended.
    package static func endActivity(_ id: Int) {
        _ = activities.withLock { $0.expirationHandlers.removeValue(forKey: id) }
        try? ProcessSystemCalls.sendLifecycleLine("end \(id)")
    }

    /// Handles one line from the device (called by the C listener thread).
    static func deliver(_ line: String) {
        markListenerThread()
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count >= 2 else { return }
        let argument = parts.count > 2 ? parts[2] : ""
        if parts[1] == "reply" { return takeReply(argument) }
        if parts[1] == "answer" { return DeviceRequests.deliverAnswer(argument) }
        let span = Tracing.begin(.lifecycleNotice)?.opened(parts[1] == "post" ? argument : "expiration of background activity \(argument)",
                                                          [("command", parts[1])])
        switch parts[1] {
        case "post":
            NotificationCenter.default.post(name: Notification.Name(argument), object: nil)
        case "expire":
            let handler = activities.withLock { $0.expirationHandlers[Int(argument) ?? -1] }
            handler?()
        default:
            break
        }
        guard let span else { return }
        span.end(parts[1] == "post" ? argument : "expiration of background activity \(argument)", [("command", parts[1])])
        // The device may stop or kill this process next (suspension, 0xdead10cc,
        // jetsam): a killed process writes no trace at exit, so what it did so far
        // is written now.
        Tracing.flush()
    }
}

/// Called by CAppGroupSys's listener thread for each line from the device.
@_cdecl("agc_lifecycle_deliver")
func agcLifecycleDeliver(_ line: UnsafePointer<CChar>) {
    LifecycleListener.deliver(String(cString: line))
}
