import Foundation

/// Whether data protected until the first unlock (`completeUntilFirstUserAuthentication`,
/// the class of a suite's property list) can be read in this process: not in a
/// target launched before the first unlock after a restart, until the device tells
/// it `UIApplicationProtectedDataDidBecomeAvailable`. A process the device did not
/// launch (a test, a tool) always can: one load of a global decides it.
package enum ProtectedDataGate {
    /// `UIApplication.protectedDataDidBecomeAvailableNotification`'s raw value.
    package static let didBecomeAvailableName = "UIApplicationProtectedDataDidBecomeAvailable"
    /// `UIApplication.protectedDataWillBecomeUnavailableNotification`'s raw value.
    package static let willBecomeUnavailableName = "UIApplicationProtectedDataWillBecomeUnavailable"

    private final class Gate: @unchecked Sendable {
        let lock = NSLock()
        var checked = false
        var closed: DeviceState?
    }
    private static let gate = Gate()

    /// The device's state while such data is closed to this process; nil when open.
    package static func closedUntilFirstUnlock() -> DeviceState? {
        guard DeviceChannel.isConnected else { return nil }
        gate.lock.lock()
        defer { gate.lock.unlock() }
        if !gate.checked {
            gate.checked = true
            // Observed before the state is read, so that an unlock in between is not missed.
            let observer = NotificationCenter.default.addObserver(forName: Notification.Name(didBecomeAvailableName), object: nil, queue: nil) { _ in
                gate.lock.lock()
                gate.closed = nil
                gate.lock.unlock()
            }
            if let state = try? DeviceStateStore.current().read(), state.condition == .beforeFirstUnlock, state.isPasscodeSet {
                gate.closed = state
            } else {
                NotificationCenter.default.removeObserver(observer)
            }
        }
        return gate.closed
    }

    /// What a save of `path` meets while closed: the system call's refusal, as
    /// cfprefsd meets it on iOS (it cannot create the file).
    package static func refusal(path: String) -> AppGroupError {
        .systemCall(operation: "open", path: path, errno: .EPERM)
    }
}
