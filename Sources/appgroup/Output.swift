import Foundation

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

    /// A date as `defaults read` prints one: `2026-11-30 09:00:00 +0000`.
    static func date(_ date: Date) -> String { OldStylePlist.dateFormatter.string(from: date) }
}
