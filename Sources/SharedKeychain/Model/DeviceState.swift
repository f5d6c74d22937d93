/// The state of a simulated device that data protection depends on. Shared by
/// every process using the device (see ``KeychainDevice``).
public struct DeviceState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The screen is locked. Matters only with a passcode: without one the device
    /// is always unlocked for data protection.
    public var isLocked: Bool
    /// The user has unlocked the device at least once since it booted.
    public var hasBeenUnlockedSinceBoot: Bool
    /// A passcode is set.
    public var isPasscodeSet: Bool

    /// A device in use: passcode set, unlocked, unlocked since boot.
    public static let unlocked = DeviceState(isLocked: false, hasBeenUnlockedSinceBoot: true, isPasscodeSet: true)

    public init(isLocked: Bool, hasBeenUnlockedSinceBoot: Bool, isPasscodeSet: Bool) {
        self.isLocked = isLocked
        self.hasBeenUnlockedSinceBoot = hasBeenUnlockedSinceBoot
        self.isPasscodeSet = isPasscodeSet
    }

    public var description: String {
        guard isPasscodeSet else { return "no passcode (always unlocked for data protection)" }
        if !hasBeenUnlockedSinceBoot { return "locked, not unlocked since boot" }
        return isLocked ? "locked (unlocked since boot)" : "unlocked"
    }
}
