import Foundation

/// Parses the value arguments of `defaults write`, typed as `defaults` types them:
/// `-string s`, `-int 12`, `-float 1.5`, `-bool YES`, `-data 68656c6c6f`,
/// `-date "2026-11-30 09:00:00 +0000"`, `-array a b c`, `-dict k1 v1 k2 v2`.
/// Without a type flag the value is a string.
enum DefaultsValue {
    static let typeFlags = ["-string", "-int", "-integer", "-float", "-bool", "-boolean", "-data", "-date", "-array", "-dict"]

    static func parse(_ arguments: [String]) throws -> Any {
        guard let first = arguments.first else { throw CLIError.usage("defaults write needs a value after the key") }
        guard typeFlags.contains(first) else {
            guard arguments.count == 1 else {
                throw CLIError.usage("several values given without a type: use -array or -dict (got \(arguments.joined(separator: " ")))")
            }
            return first
        }
        let values = Array(arguments.dropFirst())
        switch first {
        case "-array": return values
        case "-dict":
            guard values.count % 2 == 0 else {
                throw CLIError.badValue("-dict takes key value pairs; \(values.count) arguments is an odd number")
            }
            var dictionary: [String: Any] = [:]
            for i in stride(from: 0, to: values.count, by: 2) { dictionary[values[i]] = values[i + 1] }
            return dictionary
        default:
            guard values.count == 1, let raw = values.first else {
                throw CLIError.badValue("\(first) takes exactly one value (got \(values.count))")
            }
            return try scalar(first, raw)
        }
    }

    static func scalar(_ flag: String, _ raw: String) throws -> Any {
        switch flag {
        case "-string": return raw
        case "-int", "-integer":
            guard let value = Int(raw) else { throw CLIError.badValue("\"\(raw)\" is not an integer (for \(flag))") }
            return value
        case "-float":
            guard let value = Double(raw), value.isFinite else { throw CLIError.badValue("\"\(raw)\" is not a number (for -float)") }
            return value
        case "-bool", "-boolean":
            switch raw.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: throw CLIError.badValue("\"\(raw)\" is not a boolean: use YES, NO, true, false, 1 or 0 (for \(flag))")
            }
        case "-data":
            guard let data = hexData(raw) else {
                throw CLIError.badValue("\"\(raw)\" is not hex data: an even number of hex digits, e.g. 68656c6c6f (for -data)")
            }
            return data
        case "-date":
            guard let date = parseDate(raw) else {
                throw CLIError.badValue("\"\(raw)\" is not a date: use ISO 8601 (2026-11-30T09:00:00Z) or \"2026-11-30 09:00:00 +0000\" (for -date)")
            }
            return date
        default:
            throw CLIError.usage("unknown type \(flag)")
        }
    }

    static func hexData(_ raw: String) -> Data? {
        let digits = raw.hasPrefix("0x") ? String(raw.dropFirst(2)) : raw
        let cleaned = digits.filter { !$0.isWhitespace && $0 != "<" && $0 != ">" }
        guard cleaned.count % 2 == 0 else { return nil }
        var data = Data(capacity: cleaned.count / 2)
        var index = cleaned.startIndex
        while index < cleaned.endIndex {
            let next = cleaned.index(index, offsetBy: 2)
            guard let byte = UInt8(cleaned[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }

    static func parseDate(_ raw: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: raw) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            formatter.timeZone = TimeZone(identifier: "UTC")
            if let date = formatter.date(from: raw) { return date }
        }
        return nil
    }
}

/// The tool's errors: each becomes one line on stderr and a non-zero exit status.
enum CLIError: Error, CustomStringConvertible {
    /// Wrong arguments: exit 64 (EX_USAGE).
    case usage(String)
    /// A value that does not parse as its type: exit 65 (EX_DATAERR).
    case badValue(String)
    /// Something asked for is not there (a group, a key): exit 1.
    case notFound(String)
    /// The library refused or failed: exit 1.
    case failed(String)

    var description: String {
        switch self {
        case let .usage(message): return message + " (see --help)"
        case let .badValue(message), let .notFound(message), let .failed(message): return message
        }
    }

    var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .badValue: return 65
        case .notFound, .failed: return 1
        }
    }
}
