import Foundation

/// A property list as a value, exactly as a file holds it.
///
/// Unlike Foundation's `Any` trees, nothing is merged or widened: dictionary keys
/// are compared by their exact Unicode scalars (as Apple's CFString-keyed
/// dictionaries compare code units, so "caf\u{E9}" and "cafe\u{301}" are two keys)
/// and keep file order; integers keep the whole signed 64-bit range and the
/// unsigned values above it; reals and dates keep their exact bits (NaN included).
package enum PropertyListTree: Sendable, Equatable {
    case string(String)
    /// An integer: any Int64, or a UInt64 above Int64.max (see ``PropertyListInteger``).
    case integer(PropertyListInteger)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01T00:00:00Z, the format's own epoch.
    case date(Double)
    case data(Data)
    case array([PropertyListTree])
    case dictionary(PropertyListDictionary)

    /// Equal when the same type and the same exact content: reals and dates by
    /// their bits, so a NaN equals itself and a file read back equals what was written.
    package static func == (a: PropertyListTree, b: PropertyListTree) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return ExactKey(x) == ExactKey(y)
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case let (.bool(x), .bool(y)): return x == y
        case let (.date(x), .date(y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case let (.data(x), .data(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.dictionary(x), .dictionary(y)): return x == y
        default: return false
        }
    }

    /// What the value is, in words, for messages.
    package var kind: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data object"
        case .array: return "array"
        case .dictionary: return "dictionary"
        }
    }
}

/// A property-list integer: the binary format holds signed 64-bit values and,
/// in a 16-byte form, the unsigned ones above Int64.max.
package enum PropertyListInteger: Sendable, Hashable {
    case signed(Int64)
    /// Always above Int64.max (smaller values are `.signed`).
    case unsigned(UInt64)

    package init(_ value: Int64) { self = .signed(value) }

    package init(_ value: UInt64) {
        self = value > UInt64(Int64.max) ? .unsigned(value) : .signed(Int64(value))
    }
}
