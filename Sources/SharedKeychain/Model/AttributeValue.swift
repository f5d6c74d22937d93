import Foundation

/// One attribute value of a stored item, typed as Apple types it.
enum AttributeValue: Hashable, Sendable, Codable {
    case string(String)
    case data(Data)
    case int(Int)
    case bool(Bool)
    case date(Date)

    enum Kind: String { case string, data, int, bool, date }

    // Strings compare by code units (see ``ExactString``): two spellings of one
    // account are two items, as on iOS. The rest compare as synthesized.
    static func == (a: AttributeValue, b: AttributeValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x.isExactly(y)
        case let (.data(x), .data(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case let (.date(x), .date(y)): return x == y
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case let .string(s): hasher.combine(0); hasher.combine(ExactString(s))
        case let .data(d): hasher.combine(1); hasher.combine(d)
        case let .int(i): hasher.combine(2); hasher.combine(i)
        case let .bool(b): hasher.combine(3); hasher.combine(b)
        case let .date(d): hasher.combine(4); hasher.combine(d)
        }
    }

    /// Converts a caller's value (`String`, `NSString`, `Data`, `Int`, `NSNumber`,
    /// `Bool`, `Date`) to `kind`; nil for a value of the wrong type.
    init?(_ value: Any, as kind: Kind) {
        switch kind {
        case .string:
            guard let s = value as? String else { return nil }
            self = .string(s)
        case .data:
            guard let d = value as? Data else { return nil }
            self = .data(d)
        case .int:
            if value is Bool { return nil }
            if let i = value as? Int { self = .int(i); return }
            guard let n = value as? NSNumber, let i = Int(exactly: n.doubleValue) else { return nil }
            self = .int(i)
        case .bool:
            guard let b = Self.bool(value) else { return nil }
            self = .bool(b)
        case .date:
            guard let d = value as? Date else { return nil }
            self = .date(d)
        }
    }

    /// A Bool, or a number 0 or 1 (CFBoolean and NSNumber both reach us as either).
    static func bool(_ value: Any) -> Bool? {
        if let b = value as? Bool { return b }
        if let i = value as? Int, i == 0 || i == 1 { return i == 1 }
        if let n = value as? NSNumber, n.doubleValue == 0 || n.doubleValue == 1 { return n.doubleValue == 1 }
        return nil
    }

    /// The value handed back to callers in attribute dictionaries.
    var object: Any {
        switch self {
        case let .string(s): return s
        case let .data(d): return d
        case let .int(i): return i
        case let .bool(b): return b
        case let .date(d): return d
        }
    }

    /// For messages: strings in quotes, data only by size (it may be secret).
    var redacted: String {
        switch self {
        case let .string(s): return "\"\(s)\""
        case let .data(d): return "<\(d.count) bytes>"
        case let .int(i): return String(i)
        case let .bool(b): return String(b)
        case let .date(d): return ISO8601DateFormatter().string(from: d)
        }
    }
}
