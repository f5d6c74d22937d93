import Foundation
import PropertyLists

/// Where the tool writes: results on standard output, one-line reasons on standard error.
enum Output {
    /// One line on standard output.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// One line on standard error, `appgroup: <message>`; newlines in the message
    /// are flattened so the reason stays one line.
    static func error(_ message: String) {
        let flat = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("appgroup: \(flat)\n".utf8))
    }

    /// `object` as pretty-printed JSON with sorted keys (fragments allowed, for a single value).
    static func json(_ object: Any) throws {
        guard JSONSerialization.isValidJSONObject([object]) else {
            throw CLIError.failed("the value cannot be written as JSON (a number that is not finite?); read it without --json")
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        line(String(decoding: data, as: UTF8.self))
    }

    /// A JSON object from entries in order, written member by member: a Swift
    /// dictionary would merge keys that differ only in Unicode normalization.
    static func jsonObject(_ entries: [(String, Any)]) throws {
        guard JSONSerialization.isValidJSONObject(entries.map(\.1)) else {
            throw CLIError.failed("the value cannot be written as JSON (a number that is not finite?); read it without --json")
        }
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
        func text(_ value: Any) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
        }
        if entries.isEmpty { return line("{\n\n}") }
        let members = try entries.map { key, value in
            "  " + (try text(key)) + " : " + (try text(value)).replacingOccurrences(of: "\n", with: "\n  ")
        }
        line("{\n" + members.joined(separator: ",\n") + "\n}")
    }

    /// A date as `defaults read` prints one: `2026-11-30 09:00:00 +0000`.
    static func date(_ date: Date) -> String { OldStylePlist.dateFormatter.string(from: date) }

    /// JSON form of a property-list value, for `--json`: dates as ISO 8601 strings,
    /// data as base64 strings.
    static func jsonValue(_ value: Any) -> Any {
        switch value {
        case let dictionary as [String: Any]: return dictionary.mapValues(jsonValue)
        case let array as [Any]: return array.map(jsonValue)
        case let date as Date: return isoFormatter.string(from: date)
        case let data as Data: return data.base64EncodedString()
        case let url as URL: return url.absoluteString
        default: return value
        }
    }

    // ISO8601DateFormatter is not Sendable here; the tool is single-threaded.
    nonisolated(unsafe) private static let isoFormatter = ISO8601DateFormatter()
}
