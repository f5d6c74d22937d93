import AppGroupContainer
import Foundation
import PropertyLists

/// Parses the value arguments of `defaults write`, typed as `defaults` types them:
/// `-string s`, `-int 12`, `-float 1.5`, `-bool YES`, `-data 68656c6c6f`,
/// `-date "2026-11-30 09:00:00 +0000"`, `-array a b c`, `-dict k1 v1 k2 v2`,
/// `-array-add a b`, `-dict-add k v`. Without a type flag the value is a string,
/// unless it looks like an old-style property list (`'(a, b)'`, `'{ k = v; }'`).
///
/// Elements of `-array` and values of `-dict` are strings, as with `defaults`; a
/// scalar type flag before one types it (`-array -int 1 -int 2`), which `defaults`
/// cannot do. Nested arrays and dictionaries are not supported.
enum DefaultsValue {
    /// What `defaults write` is asked to do with the key.
    enum Write {
        /// Replace the value.
        case set(Any)
        /// Append to the array the key holds (create it when missing).
        case arrayAdd([Any])
        /// Merge into the dictionary the key holds (create it when missing).
        case dictionaryAdd([String: Any])
    }

    /// Flags that type one value.
    static let scalarFlags = ["-string", "-int", "-integer", "-float", "-bool", "-boolean", "-data", "-date"]
    /// Flags that take a list of values.
    static let collectionFlags = ["-array", "-array-add", "-dict", "-dict-add"]
    static var typeFlags: [String] { scalarFlags + collectionFlags }

    /// Parses everything after the key.
    /// - Throws: ``CLIError/usage(_:)`` for missing or ambiguous values,
    ///   ``CLIError/badValue(_:)`` for a value that does not parse as its type.
    static func parse(_ arguments: [String]) throws -> Write {
        guard let first = arguments.first else { throw CLIError.usage("defaults write needs a value after the key") }
        let values = Array(arguments.dropFirst())
        switch first {
        case "-array": return .set(try elements(values, of: first))
        case "-array-add": return .arrayAdd(try elements(values, of: first))
        case "-dict": return .set(try pairs(values, of: first))
        case "-dict-add": return .dictionaryAdd(try pairs(values, of: first))
        case _ where scalarFlags.contains(first):
            guard values.count == 1, let raw = values.first else {
                throw CLIError.badValue("\(first) takes exactly one value (got \(values.count)); use -array for several")
            }
            return .set(try scalar(first, raw))
        default:
            guard arguments.count == 1 else {
                if first.hasPrefix("-") {
                    throw CLIError.usage("unknown type \(first): use one of \(typeFlags.joined(separator: " "))")
                }
                throw CLIError.usage("several values given without a type: use -array or -dict (got \(arguments.joined(separator: " ")))")
            }
            // As `defaults`: an untyped value that looks like a property list is one.
            return .set(OldStyleParser.looksLikePropertyList(first) ? try oldStyle(first) : first)
        }
    }

    /// The old-style property list `text` holds.
    /// - Throws: ``CLIError/badValue(_:)`` with the parser's reason and what to do instead.
    static func oldStyle(_ text: String) throws -> Any {
        do {
            return try OldStyleParser.parse(text)
        } catch {
            throw CLIError.badValue("could not parse the property list value: \(error.message); "
                                    + "single-quote the whole value, or give a type (-string) to store it as text")
        }
    }

    /// The elements of `-array`: strings, or typed by a scalar flag before them.
    static func elements(_ values: [String], of flag: String) throws -> [Any] {
        var result: [Any] = []
        var index = 0
        while index < values.count {
            let (value, next) = try element(values, at: index, of: flag)
            result.append(value)
            index = next
        }
        return result
    }

    /// The key-value pairs of `-dict`: keys are strings, values as array elements.
    static func pairs(_ values: [String], of flag: String) throws -> [String: Any] {
        var result: [String: Any] = [:]
        var index = 0
        while index < values.count {
            let key = values[index]
            guard index + 1 < values.count else {
                throw CLIError.badValue("\(flag) takes key value pairs; the key \"\(key)\" has no value")
            }
            let (value, next) = try element(values, at: index + 1, of: flag)
            // Of one key given twice the last counts, as with `defaults`; two spellings
            // that differ only in Unicode normalization are one Swift key, so refused.
            if let at = result.index(forKey: key), case let twin = result[at].key, !twin.unicodeScalars.elementsEqual(key.unicodeScalars) {
                throw CLIError.badValue("\(flag) gives the keys \"\(twin)\" and \"\(key)\", which differ only in Unicode normalization; a dictionary written here cannot keep both, so nothing was written")
            }
            result[key] = value
            index = next
        }
        return result
    }

    /// One element at `index`, typed when a scalar flag stands there; returns the index after it.
    private static func element(_ values: [String], at index: Int, of flag: String) throws -> (Any, Int) {
        let word = values[index]
        if collectionFlags.contains(word) {
            throw CLIError.badValue("\(word) cannot be nested inside \(flag): arrays and dictionaries hold scalar values here")
        }
        guard scalarFlags.contains(word) else { return (word, index + 1) }
        guard index + 1 < values.count else { throw CLIError.badValue("\(word) inside \(flag) needs a value after it") }
        return (try scalar(word, values[index + 1]), index + 2)
    }

    /// One value typed by a scalar flag.
    static func scalar(_ flag: String, _ raw: String) throws -> Any {
        switch flag {
        case "-string": return raw
        case "-int", "-integer":
            // Every integer a property list holds: Int64, and up to UInt64.max in the
            // binary format's 16-byte form (as Apple's NSNumber keeps it).
            if let value = Int(raw) { return value }
            if let value = UInt64(raw.hasPrefix("+") ? String(raw.dropFirst()) : raw) { return value }
            throw CLIError.badValue("\"\(raw)\" is not an integer a property list holds (for \(flag)): give digits with an optional sign, e.g. 42 or -7, within \(Int64.min)...\(UInt64.max); nothing was written")
        case "-float":
            // The real nearest the text; refused when none is near it (1e400 would be an
            // infinity, 1e-400 zero), and NaN and infinities, which -float never meant.
            switch PropertyListReal.parse(raw) {
            case .success(let value) where value.isFinite:
                return value
            case .success, .failure(.notANumber):
                throw CLIError.badValue("\"\(raw)\" is not a finite number (for -float), e.g. 1.5 or -2e3; nothing was written")
            case .failure(let problem):
                throw CLIError.badValue("\"\(raw)\" \(problem.explanation) (for -float); give a number such as 1.5 or -2e3; nothing was written")
            }
        case "-bool", "-boolean":
            switch raw.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: throw CLIError.badValue("\"\(raw)\" is not a boolean: use YES, NO, true, false, 1 or 0 (for \(flag))")
            }
        case "-data":
            guard let data = OldStylePlist.data(hex: raw) else {
                throw CLIError.badValue("\"\(raw)\" is not hex data: an even number of hex digits, e.g. 68656c6c6f (for -data)")
            }
            return data
        case "-date":
            guard let date = parseDate(raw) else {
                throw CLIError.badValue("\"\(raw)\" is not a date: use ISO 8601 (2026-11-30T09:00:00Z) or \"2026-11-30 09:00:00 +0000\" (for -date)")
            }
            return date
        default:
            throw CLIError.usage("unknown type \(flag): use one of \(typeFlags.joined(separator: " "))")
        }
    }

    /// ISO 8601, or the `yyyy-MM-dd HH:mm:ss Z` form `defaults read` prints (UTC
    /// when the zone or the time is left out).
    static func parseDate(_ raw: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: raw) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.isLenient = false
        for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: raw) { return date }
        }
        return nil
    }
}
