import Foundation
import PropertyLists

// Foundation's UserDefaults on Linux, the peer a user would otherwise reach for.
// main.swift points XDG_CONFIG_HOME at the run's scratch directory first, so these
// suites never touch the user's own configuration.

/// A suite name unique to this run.
func foundationSuite(_ name: String) -> String { "appgroup-bench-\(getpid())-\(name)" }

/// A dictionary of `keys` small values, the shape of a typical defaults suite.
func sampleSuite(keys: Int) -> [String: Any] {
    var dictionary: [String: Any] = [:]
    for i in 0..<keys { switch i % 3 {
        case 0: dictionary["key\(i)"] = "value number \(i)"
        case 1: dictionary["key\(i)"] = i
        default: dictionary["key\(i)"] = Double(i) / 3
        } }
    return dictionary
}

/// Child role: `ud-increment --suite S --count N`, Foundation's read-increment-write.
func foundationIncrementChild(_ options: Options) throws {
    let suite = try options.string("suite")
    let count = try options.int("count")
    guard let defaults = UserDefaults(suiteName: suite) else { throw BenchmarkError.child("no suite \(suite)") }
    for _ in 0..<count {
        defaults.synchronize()
        defaults.set(defaults.integer(forKey: "counter") + 1, forKey: "counter")
        defaults.synchronize()
    }
}

/// ``sampleSuite(keys:)`` as the package's codec holds it, in the same order of keys.
func sampleTree(keys: Int) -> PropertyListTree {
    var dictionary = PropertyListDictionary()
    for i in 0..<keys { switch i % 3 {
        case 0: dictionary.set(.string("value number \(i)"), forKey: "key\(i)")
        case 1: dictionary.set(.integer(.signed(Int64(i))), forKey: "key\(i)")
        default: dictionary.set(.real(Double(i) / 3), forKey: "key\(i)")
        } }
    return .dictionary(dictionary)
}
