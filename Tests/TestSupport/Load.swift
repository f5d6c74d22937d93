import Foundation

/// How hard the long tests push: the normal run fits `swift test` on two busy cores;
/// `APP_GROUP_SOAK=1` runs the deep version (the Reliability article of
/// AppGroupContainer's documentation), and each count has a variable of its own.
package enum Load {
    package static let environment = ProcessInfo.processInfo.environment
    package static let soak = environment["APP_GROUP_SOAK"] == "1"

    /// `key`'s value when it is set, else `normal`, or `soak` under `APP_GROUP_SOAK=1`.
    package static func number(_ key: String, normal: Int, soak soakValue: Int) -> Int {
        if let text = environment[key], let value = Int(text) { return value }
        return soak ? soakValue : normal
    }

    /// SIGKILLs of writers in the crash test.
    package static var kills: Int { number("APP_GROUP_SOAK_KILLS", normal: 500, soak: 5000) }
    /// Lock holders killed.
    package static var lockDeaths: Int { number("APP_GROUP_SOAK_LOCK_DEATHS", normal: 100, soak: 1000) }
    /// Mutated inputs per reader in the fuzz tests.
    package static var fuzzInputs: Int { number("APP_GROUP_SOAK_FUZZ", normal: 10_000, soak: 200_000) }
    /// Seconds the 8-process soak runs.
    package static var soakSeconds: Int { number("APP_GROUP_SOAK_SECONDS", normal: 60, soak: 600) }
    /// The fuzz seed (fixed unless given), so that a failing run replays.
    package static var seed: UInt64 { UInt64(environment["APP_GROUP_SOAK_SEED"] ?? "") ?? 0x5EED_0AB1_E5 }
}
