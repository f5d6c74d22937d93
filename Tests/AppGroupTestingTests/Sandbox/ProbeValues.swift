import AppGroupTesting
import Foundation

/// The `key=value` lines of a probe's output, as a dictionary.
func values(_ outcome: ProcessOutcome) -> [String: String] {
    var result: [String: String] = [:]
    for line in outcome.outputLines {
        guard let equals = line.firstIndex(of: "=") else { continue }
        result[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    return result
}
