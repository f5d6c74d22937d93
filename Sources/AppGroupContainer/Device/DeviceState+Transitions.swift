import Foundation

extension DeviceState {
    /// A change of power or lock, as the user or the system makes it.
    package enum Transition: String, Sendable, CaseIterable {
        /// The screen locks (side button, auto-lock).
        case lock
        /// The user unlocks with the passcode (or biometry, after the first unlock).
        case unlock
        /// The device restarts: it comes up before first unlock (a powered-off one boots).
        case reboot
        /// The device is switched off.
        case powerOff = "power off"
    }

    /// Applies `transition` at `now` (the real clock). iOS never locks a locked
    /// device or unlocks an unlocked one, and nothing happens to a powered-off
    /// device but booting it: such an order is refused, naming the state, when
    /// `strictly`; otherwise (the keychain's older API) it leaves the state as it is.
    /// - Throws: ``AppGroupError/deviceStateChangeRefused(operation:state:problem:)``.
    package mutating func apply(_ transition: Transition, at now: Date = Date(), strictly: Bool = true) throws(AppGroupError) {
        let next: Condition?
        switch (transition, condition) {
        case (.lock, .unlocked): next = .locked(since: now)
        case (.unlock, .locked), (.unlock, .beforeFirstUnlock): next = .unlocked
        case (.reboot, _): next = .beforeFirstUnlock
        case (.powerOff, .poweredOff): next = nil
        case (.powerOff, _): next = .poweredOff
        default: next = nil
        }
        if let next {
            condition = next
            return
        }
        guard strictly else { return }
        let problem: String
        switch (transition, condition) {
        case (_, .poweredOff): problem = "a powered-off device only boots (reboot)"
        case (.lock, _): problem = "it is locked already: unlock it first"
        case (.unlock, _): problem = "it is unlocked already: lock it first"
        default: problem = "it is powered off already"
        }
        throw .deviceStateChangeRefused(operation: transition.rawValue, state: description, problem: problem)
    }
}
