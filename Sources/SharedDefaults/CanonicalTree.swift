import AppGroupContainer
import Foundation
import PropertyLists

/// Between the suite's exact stored form (`PropertyListTree`, keys kept by
/// their exact spelling) and the canonical Swift values the public API hands out
/// (see ``PropertyListValue``).
enum CanonicalTree {
    /// The canonical value of a stored one.
    ///
    /// A Swift `[String: Any]` cannot hold two keys that differ only in Unicode
    /// normalization ("caf\u{E9}" and "cafe\u{301}" are equal Swift strings), so a
    /// nested dictionary holding both gives the first in file order; the stored
    /// suite keeps both. An integer above Int.max is a UInt64, as Apple's NSNumber
    /// holds it (`as? UInt64`); it was once a Double, which lost its low bits.
    static func value(_ tree: PropertyListTree) -> Any {
        switch tree {
        case .string(let s): return s
        case .integer(.signed(let v)): return Int(exactly: v) ?? Double(v)
        case .integer(.unsigned(let v)): return PropertyListValue.integer(v)
        case .real(let r): return r
        case .bool(let b): return b
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d)
        case .data(let d): return d
        case .array(let items): return items.map(value)
        case .dictionary(let d): return dictionary(d)
        }
    }

    /// A stored dictionary as `[String: Any]`: of keys equal as Swift strings, the
    /// first in file order.
    static func dictionary(_ d: PropertyListDictionary) -> [String: Any] {
        var out: [String: Any] = [:]
        out.reserveCapacity(d.count)
        for (key, item) in d where out[key] == nil { out[key] = value(item) }
        return out
    }

    /// Throws unless `tree` nests at most ``PropertyListValue/maximumDepth`` levels
    /// below its top, the limit every other way of writing a value enforces.
    /// - Throws: ``SharedDefaultsError/notPropertyList(key:path:type:)``.
    static func checkDepth(_ tree: PropertyListTree, key: String) throws {
        var pending: [(PropertyListTree, Int)] = [(tree, 0)]
        while let (node, depth) = pending.popLast() {
            let children: [PropertyListTree]
            switch node {
            case .array(let items): children = items
            case .dictionary(let d): children = d.entries.map(\.value)
            default: continue
            }
            if !children.isEmpty, depth + 1 > PropertyListValue.maximumDepth {
                throw SharedDefaultsError.notPropertyList(key: key, path: key, type: "nesting deeper than \(PropertyListValue.maximumDepth) levels of arrays and dictionaries")
            }
            pending += children.map { ($0, depth + 1) }
        }
    }

    /// The stored form of a canonical value (one ``PropertyListValue/normalize(_:key:)``
    /// returned).
    /// - Throws: ``SharedDefaultsError/notPropertyList(key:path:type:)`` for anything else.
    static func tree(_ value: Any, key: String) throws -> PropertyListTree {
        switch value {
        case let v as String: return .string(v)
        case let v as Bool: return .bool(v)
        case let v as Int: return .integer(.signed(Int64(v)))
        case let v as UInt64: return .integer(PropertyListInteger(v))
        case let v as Double: return .real(v)
        case let v as Data: return .data(v)
        case let v as Date: return .date(v.timeIntervalSinceReferenceDate)
        case let v as [Any]: return .array(try v.map { try tree($0, key: key) })
        case let v as [String: Any]:
            var d = PropertyListDictionary()
            // Sorted, so equal values always serialize to equal bytes.
            for (k, item) in v.sorted(by: { $0.key < $1.key }) { d.set(try tree(item, key: key), forKey: k) }
            return .dictionary(d)
        default:
            throw SharedDefaultsError.notPropertyList(key: key, path: key, type: PropertyListValue.typeName(value))
        }
    }
}
