#if !canImport(Darwin)
import Foundation
import AppGroupContainer

// notify(3) with Apple's signatures (notify.h), on the device's signal table: what
// code uses when it calls libnotify directly rather than through the CF center.
// Status codes are Apple's.

/// Success.
public let NOTIFY_STATUS_OK = 0
/// The name is nil, empty, over-long (more than 1,024 UTF-8 bytes), not UTF-8, or
/// the token's name is unknown.
public let NOTIFY_STATUS_INVALID_NAME = 1
/// The token was never issued, or was cancelled.
public let NOTIFY_STATUS_INVALID_TOKEN = 2
/// A nil argument where a value is needed.
public let NOTIFY_STATUS_NULL_INPUT = 10
/// The device's signal table cannot be used (the reason is reported on stderr).
public let NOTIFY_STATUS_FAILED = 1_000_000

/// The block `notify_register_dispatch` calls with its token, as Apple's.
public typealias notify_handler_t = (Int32) -> Void

/// Posts `name` to every registration of it in the processes of the device.
@discardableResult // a C function's result in Apple's SDK: code ignores it freely
public func notify_post(_ name: UnsafePointer<CChar>!) -> UInt32 {
    guard let name = NotifyRegistrations.validName(name) else { return UInt32(NOTIFY_STATUS_INVALID_NAME) }
    guard let table = DarwinNotifications.deviceTable() else { return UInt32(NOTIFY_STATUS_FAILED) }
    table.post(name)
    return UInt32(NOTIFY_STATUS_OK)
}

/// Calls `handler` with the token on `queue` after each post of `name` (at least
/// once after any number of posts made while this process was busy or suspended);
/// the token is written to `out_token`.
@discardableResult // a C function's result in Apple's SDK: code ignores it freely
public func notify_register_dispatch(_ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!,
                                     _ queue: DispatchQueue!, _ handler: notify_handler_t!) -> UInt32 {
    guard let out_token, let queue, let handler else { return UInt32(NOTIFY_STATUS_NULL_INPUT) }
    return NotifyRegistrations.register(name, out_token) { token in
        // Apple's handler block is not Sendable either; it runs on the queue the
        // caller chose for it, which is where it is built to run.
        let handoff = NotifyHandoff(handler: handler)
        return { queue.async { handoff.handler(token) } }
    }
}

/// Registers `name` for polling with ``notify_check(_:_:)``; the token is written
/// to `out_token`.
@discardableResult // a C function's result in Apple's SDK: code ignores it freely
public func notify_register_check(_ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!) -> UInt32 {
    guard let out_token else { return UInt32(NOTIFY_STATUS_NULL_INPUT) }
    return NotifyRegistrations.register(name, out_token, delivery: nil)
}

/// Sets `check` to 1 when `name` was posted since the last check of `token` (the
/// first check always answers 1, as Apple's), else 0.
@discardableResult // a C function's result in Apple's SDK: code ignores it freely
public func notify_check(_ token: Int32, _ check: UnsafeMutablePointer<Int32>!) -> UInt32 {
    guard let check else { return UInt32(NOTIFY_STATUS_NULL_INPUT) }
    guard let changed = NotifyRegistrations.check(token) else { return UInt32(NOTIFY_STATUS_INVALID_TOKEN) }
    check.pointee = changed ? 1 : 0
    return UInt32(NOTIFY_STATUS_OK)
}

/// Ends the registration of `token`: no handler call starts after this returns,
/// except one already queued.
@discardableResult // a C function's result in Apple's SDK: code ignores it freely
public func notify_cancel(_ token: Int32) -> UInt32 {
    NotifyRegistrations.cancel(token) ? UInt32(NOTIFY_STATUS_OK) : UInt32(NOTIFY_STATUS_INVALID_TOKEN)
}

private struct NotifyHandoff: @unchecked Sendable {
    let handler: notify_handler_t
}

/// The notify(3) registrations of this process, by token.
enum NotifyRegistrations {
    private struct Registration {
        let table: SignalTable
        /// The name's slot when the table was mapped the `generation`th time (a
        /// table broken and mapped again may hold the name elsewhere).
        var slot: Int
        var generation: UInt64
        let name: String
        /// The count at the last check (nil: never checked; the first check answers 1).
        var checked: UInt32?
        let observation: SignalObservation?
    }

    private static let state = Locked<(next: Int32, tokens: [Int32: Registration])>((1, [:]))

    /// The name as text; nil when it is nil, empty, over-long or not UTF-8.
    static func validName(_ name: UnsafePointer<CChar>?) -> String? {
        guard let name else { return nil }
        let length = strnlen(name, DarwinNotifications.nameLimit + 1)
        guard length > 0, length <= DarwinNotifications.nameLimit else { return nil }
        return String(validating: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self)
    }

    /// Issues a token for `name`; `delivery` makes the call a post brings, given the token.
    static func register(_ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<Int32>,
                         delivery: ((Int32) -> @Sendable () -> Void)?) -> UInt32 {
        guard let text = validName(name) else { return UInt32(NOTIFY_STATUS_INVALID_NAME) }
        guard let table = DarwinNotifications.deviceTable() else { return UInt32(NOTIFY_STATUS_FAILED) }
        let token = state.withLock { current -> Int32 in
            defer { current.next = current.next == Int32.max ? 1 : current.next + 1 }
            return current.next
        }
        let observation = delivery.map { table.observe(text, handler: $0(token)) }
        let generation = table.mappingGeneration
        let slot = table.slot(of: text)
        state.withLock { $0.tokens[token] = Registration(table: table, slot: slot, generation: generation, name: text, checked: nil, observation: observation) }
        out.pointee = token
        return UInt32(NOTIFY_STATUS_OK)
    }

    static func check(_ token: Int32) -> Bool? {
        state.withLock { current -> Bool? in
            guard var registration = current.tokens[token] else { return nil }
            registration.table.revalidate()
            let generation = registration.table.mappingGeneration
            if generation != registration.generation {
                registration.slot = registration.table.slot(of: registration.name)
                registration.generation = generation
                current.tokens[token] = registration
            }
            let now = registration.table.count(registration.slot)
            current.tokens[token]?.checked = now
            return registration.checked != now
        }
    }

    static func cancel(_ token: Int32) -> Bool {
        let removed = state.withLock { $0.tokens.removeValue(forKey: token) }
        removed?.observation?.cancel()
        return removed != nil
    }
}
#endif
