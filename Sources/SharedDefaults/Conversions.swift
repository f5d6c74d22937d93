import AppGroupContainer
import Foundation
import PropertyLists

/// Apple's documented coercions for the typed getters of `UserDefaults`, applied
/// to canonical values (see ``PropertyListValue``).
enum Conversions {
    /// `integer(forKey:)`: a Bool is 1 or 0; a real becomes the greatest integer
    /// not above it (2.67 → 2); a string holding a number is that number ("123" → 123);
    /// anything else, or a value out of range, is 0.
    static func integer(_ value: Any?) -> Int {
        switch value {
        case let v as Bool: return v ? 1 : 0
        case let v as Int: return v
        case is UInt64: return 0 // above Int.max: out of range
        case let v as Double: return integer(fromReal: v)
        case let v as String:
            let trimmed = v.trimmingCharacters(in: .whitespacesAndNewlines)
            if let i = Int(trimmed) { return i }
            if let d = Double(trimmed) { return integer(fromReal: d) }
            return 0
        default: return 0
        }
    }

    private static func integer(fromReal v: Double) -> Int {
        guard v.isFinite else { return 0 }
        return Int(exactly: v.rounded(.down)) ?? 0
    }

    /// `double(forKey:)` and `float(forKey:)`: numbers as they are, a Bool as 1 or 0,
    /// a string holding a number as that number; anything else 0.
    static func double(_ value: Any?) -> Double {
        switch value {
        case let v as Bool: return v ? 1 : 0
        case let v as Double: return v
        case let v as Int: return Double(v)
        case let v as UInt64: return Double(v)
        case let v as String: return Double(v.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        default: return 0
        }
    }

    /// `bool(forKey:)`: false when missing; a number is true when not zero; a string
    /// is true for "true", "YES", "1" and the like (NSString's `boolValue` rule: after
    /// blanks, a sign and leading zeros, it begins with Y, y, T, t or a digit 1–9).
    static func bool(_ value: Any?) -> Bool {
        switch value {
        case let v as Bool: return v
        case let v as Int: return v != 0
        case is UInt64: return true // never 0: above Int.max
        case let v as Double: return v != 0
        case let v as String:
            var scalars = Substring(v).unicodeScalars.drop(while: { CharacterSet.whitespacesAndNewlines.contains($0) })
            if let first = scalars.first, first == "+" || first == "-" { scalars = scalars.dropFirst() }
            scalars = scalars.drop(while: { $0 == "0" })
            guard let first = scalars.first else { return false }
            return "YyTt123456789".unicodeScalars.contains(first)
        default: return false
        }
    }

    /// `string(forKey:)`: a string as it is; a number as its string value (123 → "123",
    /// a Bool as "1" or "0", as NSNumber's `stringValue` gives); anything else nil.
    static func string(_ value: Any?) -> String? {
        switch value {
        case let v as String: return v
        case let v as Bool: return v ? "1" : "0"
        case let v as Int: return String(v)
        case let v as UInt64: return String(v)
        case let v as Double:
            if v.isFinite, v.rounded() == v, let i = Int(exactly: v) { return String(i) }
            return String(v)
        default: return nil
        }
    }

    /// `url(forKey:)`: a string beginning with "/" or "~" is a file path (a tilde is
    /// expanded); a string with a scheme is that URL (``SharedDefaults/set(_:forKey:)-URL``
    /// stores `absoluteString`); data holding an archived NSURL (what Apple's
    /// `set(_:forKey:)` writes) is unarchived. Anything else nil.
    static func url(_ value: Any?) -> URL? {
        switch value {
        case let v as String:
            if v.hasPrefix("~") { return URL(fileURLWithPath: NSString(string: v).expandingTildeInPath) }
            if v.hasPrefix("/") { return URL(fileURLWithPath: v) }
            guard let url = URL(string: v), url.scheme != nil else { return nil }
            return url
        case let v as Data:
            // The data may come from any process: only what the package's codec reads
            // (no set, no cycle, bounded nesting) reaches Foundation's unarchiver.
            let readable: Bool
            if v.starts(with: Array("bplist".utf8)) {
                readable = (try? BinaryPropertyListReader.read(v, allowingUIDs: true)) != nil
            } else {
                readable = (try? PropertyListCodec.read(v)) != nil
            }
            guard readable, let archived = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: v) else { return nil }
            return archived as URL
        default: return nil
        }
    }

    /// `stringArray(forKey:)`: an array whose every element is a string; else nil.
    static func stringArray(_ value: Any?) -> [String]? {
        guard let array = value as? [Any] else { return nil }
        var out: [String] = []
        out.reserveCapacity(array.count)
        for element in array {
            guard let s = element as? String else { return nil }
            out.append(s)
        }
        return out
    }
}
