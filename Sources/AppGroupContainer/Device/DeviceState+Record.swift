import Foundation

/// A device's state as its record holds it (a binary property list), kept apart
/// from ``DeviceState`` so that the coding stays the package's. A record of an
/// earlier version holds `isLocked` and `hasBeenUnlockedSinceBoot` instead of
/// `condition`: it reads as the same state (locked at the moment it is read) and
/// is written in this shape at the next change.
package struct DeviceStateRecord: Codable {
    package var state: DeviceState

    package init(_ state: DeviceState) { self.state = state }

    private enum CodingKeys: String, CodingKey {
        case condition, lockedAt, isPasscodeSet, clockOffset, protectedDataGrace, securityGeneration
        case isLocked, hasBeenUnlockedSinceBoot
    }

    package init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        let condition: DeviceState.Condition
        if let name = try values.decodeIfPresent(String.self, forKey: .condition) {
            switch name {
            case "poweredOff": condition = .poweredOff
            case "beforeFirstUnlock": condition = .beforeFirstUnlock
            case "unlocked": condition = .unlocked
            case "locked":
                guard let since = try values.decodeIfPresent(Date.self, forKey: .lockedAt) else {
                    throw DeviceState.Refusal(description: "condition \"locked\" without lockedAt")
                }
                condition = .locked(since: since)
            default:
                throw DeviceState.Refusal(description: "unknown condition \"\(name.prefix(40))\" (poweredOff, beforeFirstUnlock, unlocked or locked)")
            }
        } else {
            let locked = try values.decode(Bool.self, forKey: .isLocked)
            let unlockedSinceBoot = try values.decode(Bool.self, forKey: .hasBeenUnlockedSinceBoot)
            condition = !locked ? .unlocked : unlockedSinceBoot ? .locked(since: Date()) : .beforeFirstUnlock
        }
        state = DeviceState(condition: condition,
                            isPasscodeSet: try values.decode(Bool.self, forKey: .isPasscodeSet),
                            clockOffset: try values.decodeIfPresent(Double.self, forKey: .clockOffset) ?? 0,
                            protectedDataGrace: try values.decodeIfPresent(Double.self, forKey: .protectedDataGrace)
                                ?? DeviceState.defaultProtectedDataGrace)
        state.securityGeneration = try values.decodeIfPresent(Int.self, forKey: .securityGeneration) ?? 0
        if let problem = state.problem { throw DeviceState.Refusal(description: problem) }
    }

    package func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(state.condition.name, forKey: .condition)
        if let since = state.lockedSince { try values.encode(since, forKey: .lockedAt) }
        try values.encode(state.isPasscodeSet, forKey: .isPasscodeSet)
        try values.encode(state.clockOffset, forKey: .clockOffset)
        try values.encode(state.protectedDataGrace, forKey: .protectedDataGrace)
        try values.encode(state.securityGeneration, forKey: .securityGeneration)
    }
}

extension DeviceState {
    /// What is wrong with a record's values, for the store's error.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
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
