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
    /// Locks, restarts and passcode changes so far: what an `LAContext` proved before
    /// one does not count after it. Kept by ``KeychainDevice`` (see ``advanced(to:)``),
    /// never set by callers; not part of equality.
    var securityGeneration = 0

    /// A device in use: passcode set, unlocked, unlocked since boot.
    public static let unlocked = DeviceState(isLocked: false, hasBeenUnlockedSinceBoot: true, isPasscodeSet: true)

    public init(isLocked: Bool, hasBeenUnlockedSinceBoot: Bool, isPasscodeSet: Bool) {
        self.isLocked = isLocked
        self.hasBeenUnlockedSinceBoot = hasBeenUnlockedSinceBoot
        self.isPasscodeSet = isPasscodeSet
    }

    /// `next` as the device's new state: its security generation moves on when the
    /// device locks or restarts or the passcode is set or removed, and only then,
    /// whatever `next` holds (a change can never bring an older generation back).
    func advanced(to next: DeviceState) -> DeviceState {
        var state = next
        let ends = (!isLocked && next.isLocked) || (hasBeenUnlockedSinceBoot && !next.hasBeenUnlockedSinceBoot)
            || isPasscodeSet != next.isPasscodeSet
        state.securityGeneration = ends ? securityGeneration &+ 1 : securityGeneration
        return state
    }

    /// Equal when data protection sees them alike: the same lock, first unlock and passcode.
    public static func == (a: DeviceState, b: DeviceState) -> Bool {
        a.isLocked == b.isLocked && a.hasBeenUnlockedSinceBoot == b.hasBeenUnlockedSinceBoot && a.isPasscodeSet == b.isPasscodeSet
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(isLocked)
        hasher.combine(hasBeenUnlockedSinceBoot)
        hasher.combine(isPasscodeSet)
    }

    private enum CodingKeys: String, CodingKey {
        case isLocked, hasBeenUnlockedSinceBoot, isPasscodeSet, securityGeneration
    }

    /// Reads a state file; one written before `securityGeneration` existed reads as generation 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isLocked = try container.decode(Bool.self, forKey: .isLocked)
        hasBeenUnlockedSinceBoot = try container.decode(Bool.self, forKey: .hasBeenUnlockedSinceBoot)
        isPasscodeSet = try container.decode(Bool.self, forKey: .isPasscodeSet)
        securityGeneration = try container.decodeIfPresent(Int.self, forKey: .securityGeneration) ?? 0
    }

    public var description: String {
        guard isPasscodeSet else { return "no passcode (always unlocked for data protection)" }
        if !hasBeenUnlockedSinceBoot { return "locked, not unlocked since boot" }
        return isLocked ? "locked (unlocked since boot)" : "unlocked"
    }
}
