#if !canImport(Darwin)
import Foundation

/// The argument domain: `-key value` pairs among the process's launch arguments,
/// first in every `UserDefaults` object's search list, as on Apple's platforms
/// (so a test can launch a target with `-hasSeenOnboarding YES`). Read-only,
/// in memory, parsed once.
enum ArgumentDomain {
    /// Canonical values by key (immutable value types, safe to share).
    nonisolated(unsafe) static let values: [String: Any] = parse(ProcessInfo.processInfo.arguments)

    /// Apple's rule: an argument `-key` followed by one that does not begin with
    /// "-" is a pair. A value that begins like a property list (`{`, `(`, `[`,
    /// `<`, `"`) and parses as one is that property list; any other is a string.
    static func parse(_ arguments: [String]) -> [String: Any] {
        var result: [String: Any] = [:]
        var index = 0
        while index + 1 < arguments.count {
            let (current, next) = (arguments[index], arguments[index + 1])
            guard current.count > 1, current.hasPrefix("-"), !next.hasPrefix("-") else {
                index += 1
                continue
            }
            let key = String(current.dropFirst())
            result[key] = propertyList(next, key: key) ?? next
            index += 2
        }
        return result
    }

    private static func propertyList(_ text: String, key: String) -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first, "{([<\"".contains(first),
              let parsed = try? PropertyListSerialization.propertyList(from: Data(trimmed.utf8), format: nil) else { return nil }
        // A value no suite could hold (not a property list after all) stays the text it was.
        return try? PropertyListValue.normalize(parsed, key: key)
    }
}
#endif
