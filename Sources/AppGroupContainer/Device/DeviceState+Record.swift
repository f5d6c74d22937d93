import Foundation

// The record's shape on disk (a binary property list). A record of an earlier
// version holds `isLocked` and `hasBeenUnlockedSinceBoot` instead of `condition`:
// it reads as the same state (locked at the moment it is read) and is written in
// this shape at the next change.
extension DeviceState: Codable {
    private enum CodingKeys: String, CodingKey {
        case condition, lockedAt, isPasscodeSet, clockOffset, protectedDataGrace, securityGeneration
        case isLocked, hasBeenUnlockedSinceBoot
    }

    /// What is wrong with a record's values, for the store's error.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        let condition: Condition
        if let name = try values.decodeIfPresent(String.self, forKey: .condition) {
            switch name {
            case "poweredOff": condition = .poweredOff
            case "beforeFirstUnlock": condition = .beforeFirstUnlock
            case "unlocked": condition = .unlocked
            case "locked":
                guard let since = try values.decodeIfPresent(Date.self, forKey: .lockedAt) else {
                    throw Refusal(description: "condition \"locked\" without lockedAt")
                }
                condition = .locked(since: since)
            default:
                throw Refusal(description: "unknown condition \"\(name.prefix(40))\" (poweredOff, beforeFirstUnlock, unlocked or locked)")
            }
        } else {
            let locked = try values.decode(Bool.self, forKey: .isLocked)
            let unlockedSinceBoot = try values.decode(Bool.self, forKey: .hasBeenUnlockedSinceBoot)
            condition = !locked ? .unlocked : unlockedSinceBoot ? .locked(since: Date()) : .beforeFirstUnlock
        }
        self.init(condition: condition,
                  isPasscodeSet: try values.decode(Bool.self, forKey: .isPasscodeSet),
                  clockOffset: try values.decodeIfPresent(Double.self, forKey: .clockOffset) ?? 0,
                  protectedDataGrace: try values.decodeIfPresent(Double.self, forKey: .protectedDataGrace) ?? Self.defaultProtectedDataGrace)
        securityGeneration = try values.decodeIfPresent(Int.self, forKey: .securityGeneration) ?? 0
        if let problem = problem { throw Refusal(description: problem) }
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(condition.name, forKey: .condition)
        if let lockedSince { try values.encode(lockedSince, forKey: .lockedAt) }
        try values.encode(isPasscodeSet, forKey: .isPasscodeSet)
        try values.encode(clockOffset, forKey: .clockOffset)
        try values.encode(protectedDataGrace, forKey: .protectedDataGrace)
        try values.encode(securityGeneration, forKey: .securityGeneration)
    }

    /// Why these values cannot be a device's; nil when they can.
    var problem: String? {
        if !clockOffset.isFinite || abs(clockOffset) > Self.clockOffsetLimit {
            return "clockOffset \(clockOffset) is not a number of seconds within \(Int(Self.clockOffsetLimit))"
        }
        if !protectedDataGrace.isFinite || protectedDataGrace < 0 || protectedDataGrace > Self.protectedDataGraceLimit {
            return "protectedDataGrace \(protectedDataGrace) is not between 0 and \(Int(Self.protectedDataGraceLimit)) seconds"
        }
        if securityGeneration < 0 { return "securityGeneration \(securityGeneration) is negative" }
        if let since = lockedSince, !since.timeIntervalSince1970.isFinite { return "lockedAt is not a date" }
        return nil
    }
}
