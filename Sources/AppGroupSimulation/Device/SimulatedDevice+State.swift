import AppGroupContainer
import AppGroupSystem
import Foundation

// The device's state (AppGroupContainer's DeviceState: power, lock, passcode,
// clock), the one record the keychain, WidgetKit, the suites and the targets'
// protected-data notifications follow. Written here, by the test process only.
// <doc:DataProtection> says what iOS does and what the device does of it.
extension SimulatedDevice {
    /// The record of this device's state (`<root>/Devices/default.device-state.plist`).
    var stateStore: DeviceStateStore { DeviceStateStore(root: root) }

    /// The device's state as every process of the device reads it: power and
    /// lock, passcode, clock. A fresh device is unlocked, with a passcode set.
    /// - Throws: ``SimulationError/container(_:)`` for a record that cannot be read.
    public var state: DeviceState {
        get throws { try SimulationError.passingUp { try stateStore.read() } }
    }

    /// Locks the device, as its side button does: `WhenUnlocked` keychain items
    /// become unreadable at once; after `DeviceState.protectedDataGrace` seconds
    /// (iOS: about 10) every running target is told
    /// `UIApplicationProtectedDataWillBecomeUnavailable` and
    /// `isProtectedDataAvailable` turns false. With a grace of 0 the targets are
    /// told before this returns.
    /// - Throws: ``SimulationError/container(_:)``: the device is locked already or
    ///   powered off (`AppGroupError.deviceStateChangeRefused`).
    public func lock() throws {
        let state = try changeState(DeviceState.Transition.lock.rawValue) { try $0.apply(.lock) }
        guard let since = state.lockedSince else { return }
        guard state.protectedDataGrace > 0 else { return tellTargets(ProtectedDataNotificationName.willBecomeUnavailable) }
        // Told only if the device is still locked since then when the grace ends.
        DispatchQueue.global().asyncAfter(deadline: .now() + state.protectedDataGrace) { [weak self] in
            guard let self, let now = try? self.stateStore.read(), let still = now.lockedSince,
                  abs(still.timeIntervalSince(since)) < 0.001 else { return }
            self.tellTargets(ProtectedDataNotificationName.willBecomeUnavailable)
        }
    }

    /// Unlocks the device, as the user does with the passcode: every running
    /// target is told `UIApplicationProtectedDataDidBecomeAvailable` before this
    /// returns. The first unlock after ``reboot()`` also opens `AfterFirstUnlock` items.
    /// - Throws: ``SimulationError/container(_:)``: the device is unlocked already or powered off.
    public func unlock() throws {
        try changeState(DeviceState.Transition.unlock.rawValue) { try $0.apply(.unlock) }
        tellTargets(ProtectedDataNotificationName.didBecomeAvailable)
    }

    /// Restarts the device: every running target ends as on a restart (killed,
    /// ``TerminationReason/deviceRestarted``, recorded in ``terminations``), and the
    /// device comes up before first unlock, where only `Always` keychain items are
    /// readable until ``unlock()``. Launch an app then with `prewarmed: true` to
    /// play iOS's prewarming.
    /// - Throws: ``SimulationError/container(_:)`` when the state cannot be written.
    public func reboot() throws {
        endTargetsForRestart()
        try changeState(DeviceState.Transition.reboot.rawValue) { try $0.apply(.reboot) }
    }

    /// Sets how long after locking `complete` protected data stays available
    /// (iOS: about 10 s): a test shortens it to 0 to be told at once.
    /// - Throws: ``SimulationError/container(_:)`` for a negative or larger grace
    ///   than 3600 s.
    public func setProtectedDataGrace(_ seconds: TimeInterval) throws {
        try changeState("set the protected-data grace of") { state in
            guard seconds.isFinite, seconds >= 0, seconds <= DeviceState.protectedDataGraceLimit else {
                throw AppGroupError.deviceStateChangeRefused(operation: "set the protected-data grace of", state: state.description,
                    problem: "\(seconds) s is not between 0 and \(Int(DeviceState.protectedDataGraceLimit)) s")
            }
            state.protectedDataGrace = seconds
        }
    }

    /// Changes the record for every process of the device at once; returns the new state.
    @discardableResult
    func changeState(_ operation: String, _ body: (inout DeviceState) throws -> Void) throws -> DeviceState {
        try SimulationError.passingUp {
            try stateStore.change(operation) { state in
                try body(&state)
                return state
            }
        }
    }

    /// Posts `name` in every running target that listens (a suspended one is
    /// told nothing: it runs no code). A target that does not acknowledge in time
    /// is recorded, not waited for further.
    func tellTargets(_ name: String) {
        let settings = lifecycleSettings
        for connection in life.lifecycle.liveConnections where connection.currentState != .suspended {
            do {
                try connection.post(name, request: "tell \(name)", timeout: settings.acknowledgementTimeout, grace: settings.listenerGrace)
            } catch {
                life.lifecycle.refused(error)
            }
        }
    }

    /// Kills every running target (a suspended one too), as a restart ends them.
    private func endTargetsForRestart() {
        for connection in life.lifecycle.liveConnections {
            let state = connection.currentState
            _ = try? kill(connection, reason: .deviceRestarted, state: state, request: "reboot")
        }
    }
}

/// The protected-data notification names iOS posts in an app's process
/// (`UIApplication.protectedDataWillBecomeUnavailableNotification` and
/// `...DidBecomeAvailableNotification`; the raw values Apple's constants have).
public enum ProtectedDataNotificationName {
    /// `UIApplication.protectedDataWillBecomeUnavailableNotification`.
    public static let willBecomeUnavailable = ProtectedDataGate.willBecomeUnavailableName
    /// `UIApplication.protectedDataDidBecomeAvailableNotification`.
    public static let didBecomeAvailable = ProtectedDataGate.didBecomeAvailableName
}
