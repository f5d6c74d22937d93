import Foundation

/// How hard the long tests push, at three lengths:
///
/// - quick (the default): `swift test` on a developer's machine, each soak and storm
///   long enough to mean something (thousands of operations, hundreds of kills);
/// - full (`APP_GROUP_SOAK=full`): the lengths `.ci/run` gives the `soak`-tagged
///   tests in a pass of their own, as a nightly run would;
/// - deep (`APP_GROUP_SOAK=1`): the Reliability article's deep run.
///
/// Each count also has a variable of its own, which wins over all three.
package enum Load {
    package static let environment = ProcessInfo.processInfo.environment
    package static let level = environment["APP_GROUP_SOAK"] ?? ""
    /// The deep run.
    package static let soak = level == "1" || level == "deep"
    /// CI's pass of the soak tests at their full length.
    package static let full = level == "full"

    /// `key`'s value when it is set, else the value for the run's length.
    package static func number(_ key: String, quick: Int, full fullValue: Int, deep: Int) -> Int {
        if let text = environment[key], let value = Int(text) { return value }
        return soak ? deep : full ? fullValue : quick
    }

    /// `key`'s value when it is set, else `normal` (quick and full alike), or `soak` in the deep run.
    package static func number(_ key: String, normal: Int, soak soakValue: Int) -> Int {
        number(key, quick: normal, full: normal, deep: soakValue)
    }

    /// SIGKILLs of writers in the crash test.
    package static var kills: Int { number("APP_GROUP_SOAK_KILLS", quick: 200, full: 500, deep: 5000) }
    /// Lock holders killed.
    package static var lockDeaths: Int { number("APP_GROUP_SOAK_LOCK_DEATHS", quick: 50, full: 100, deep: 1000) }
    /// Mutated inputs per reader in the fuzz tests.
    package static var fuzzInputs: Int { number("APP_GROUP_SOAK_FUZZ", normal: 10_000, soak: 200_000) }
    /// Seconds the 8-process soak runs.
    package static var soakSeconds: Int { number("APP_GROUP_SOAK_SECONDS", quick: 15, full: 60, deep: 600) }
    /// The fuzz seed (fixed unless given), so that a failing run replays.
    package static var seed: UInt64 { UInt64(environment["APP_GROUP_SOAK_SEED"] ?? "") ?? 0x5EED_0AB1_E5 }
}
