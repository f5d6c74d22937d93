import Foundation

/// The state of a simulated device that data protection, the keychain and
/// WidgetKit follow: its power and lock, whether a passcode is set, and its
/// clock. One record per device, kept by `DeviceStateStore` and written only by
/// the test process (the device); every process of the device reads it.
public struct DeviceState: Sendable, Hashable, CustomStringConvertible {
    /// Where the device is between power-off and use, as data protection sees it.
    public enum Condition: Sendable, Hashable, CustomStringConvertible {
        /// Switched off: no target runs, nothing is readable.
        case poweredOff
        /// Booted, and not unlocked since: only files and items protected
        /// `...UntilFirstUserAuthentication`-less (`None`, `Always`) are readable.
        case beforeFirstUnlock
        /// Unlocked: everything is readable.
        case unlocked
        /// Locked (at `since`, on the real clock) after a first unlock:
        /// `AfterFirstUnlock` items stay readable, `WhenUnlocked` ones do not.
        case locked(since: Date)

        /// The word the records and the command line use.
        package var name: String {
            switch self {
            case .poweredOff: return "poweredOff"
            case .beforeFirstUnlock: return "beforeFirstUnlock"
            case .unlocked: return "unlocked"
            case .locked: return "locked"
            }
        }

        public var description: String {
            switch self {
            case .poweredOff: return "powered off"
            case .beforeFirstUnlock: return "booted, not unlocked since boot"
            case .unlocked: return "unlocked"
            case .locked: return "locked (unlocked since boot)"
            }
        }
    }

    /// Power and lock.
    public var condition: Condition
    /// A passcode is set. Without one, data protection treats the device as
    /// unlocked whatever its screen does.
    public var isPasscodeSet: Bool
    /// Seconds the device's clock is ahead of the real one (`SimulatedDevice`'s
    /// `advanceClock(by:)`); WidgetKit's timelines and budgets run on it.
    public var clockOffset: TimeInterval
    /// Seconds between locking and the moment `complete` protected data becomes
    /// unavailable (iOS: about 10). A test shortens it.
    public var protectedDataGrace: TimeInterval
    /// Locks, restarts and passcode changes so far: what an `LAContext` proved
    /// before one does not count after it. Moved on by ``advanced(to:)`` only;
    /// not part of equality.
    package var securityGeneration = 0

    /// iOS's grace after locking before `complete` data becomes unavailable.
    package static let defaultProtectedDataGrace: TimeInterval = 10
    /// The longest grace a record may hold (one hour): more is a planted file.
    package static let protectedDataGraceLimit: TimeInterval = 3600
    /// The farthest a clock may be moved (about 100 years): more is a planted file.
    package static let clockOffsetLimit: TimeInterval = 100 * 365 * 86_400

    /// A device in use: passcode set, unlocked (how a fresh device starts).
    public static let unlocked = DeviceState(condition: .unlocked, isPasscodeSet: true)

    package init(condition: Condition, isPasscodeSet: Bool = true, clockOffset: TimeInterval = 0,
                protectedDataGrace: TimeInterval = DeviceState.defaultProtectedDataGrace) {
        self.condition = condition
        self.isPasscodeSet = isPasscodeSet
        self.clockOffset = clockOffset
        self.protectedDataGrace = protectedDataGrace
    }

    /// The state from the three facts the keychain's data protection reads: locked
    /// and never unlocked is ``Condition/beforeFirstUnlock``, locked after a first
    /// unlock ``Condition/locked(since:)`` (now), anything not locked ``Condition/unlocked``.
    public init(isLocked: Bool, hasBeenUnlockedSinceBoot: Bool, isPasscodeSet: Bool) {
        let condition: Condition = !isLocked ? .unlocked : hasBeenUnlockedSinceBoot ? .locked(since: Date()) : .beforeFirstUnlock
        self.init(condition: condition, isPasscodeSet: isPasscodeSet)
    }

    /// The screen is locked (or the device off, or not unlocked since boot).
    public var isLocked: Bool {
        if case .unlocked = condition { return false }
        return true
    }

    /// The user has unlocked the device at least once since it booted.
    public var hasBeenUnlockedSinceBoot: Bool {
        switch condition {
        case .unlocked, .locked: return true
        case .poweredOff, .beforeFirstUnlock: return false
        }
    }

    /// When the device locked, nil when it is not locked after a first unlock.
    package var lockedSince: Date? {
        if case let .locked(since) = condition { return since }
        return nil
    }

    /// What `UIApplication.isProtectedDataAvailable` answers: true without a
    /// passcode (once booted), else only while unlocked or within the grace after
    /// locking, at `now` (the real clock).
    public func isProtectedDataAvailable(at now: Date = Date()) -> Bool {
        switch condition {
        case .poweredOff: return false
        case .unlocked: return true
        case .beforeFirstUnlock: return !isPasscodeSet
        case let .locked(since): return !isPasscodeSet || now.timeIntervalSince(since) < protectedDataGrace
        }
    }

    /// The device's clock at the real time `now`.
    package func clock(at now: Date = Date()) -> Date { now.addingTimeInterval(clockOffset) }

    /// `next` as the device's new state: its security generation moves on when the
    /// device locks or restarts or the passcode is set or removed, and only then,
    /// whatever `next` holds (a change can never bring an older generation back).
    package func advanced(to next: DeviceState) -> DeviceState {
        var state = next
        let ends = (!isLocked && next.isLocked) || (hasBeenUnlockedSinceBoot && !next.hasBeenUnlockedSinceBoot)
            || isPasscodeSet != next.isPasscodeSet
        state.securityGeneration = ends ? securityGeneration &+ 1 : securityGeneration
        return state
    }

    /// Equal when data protection sees them alike: the same condition (whenever
    /// it locked), the same passcode; the clock and the grace are not compared.
    public static func == (a: DeviceState, b: DeviceState) -> Bool {
        a.condition.name == b.condition.name && a.isPasscodeSet == b.isPasscodeSet
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(condition.name)
        hasher.combine(isPasscodeSet)
    }

    public var description: String {
        switch condition {
        case .poweredOff: return "powered off"
        case .beforeFirstUnlock:
            return isPasscodeSet ? "locked, not unlocked since boot" : "no passcode, not unlocked since boot (always unlocked for data protection)"
        case .unlocked, .locked:
            guard isPasscodeSet else { return "no passcode (always unlocked for data protection)" }
            return isLocked ? "locked (unlocked since boot)" : "unlocked"
        }
    }
}
