import Foundation

/// Checking and normalising property-list values.
///
/// Values are kept in one canonical Swift form whatever their origin (a caller's
/// `NSNumber`, a parsed file's `Dictionary<AnyHashable, Any>`): String, Bool, Int,
/// UInt64 (only for an integer above Int.max, which property lists hold and Apple's
/// NSNumber keeps), Double, Data, Date, `[Any]` and `[String: Any]`. So reads return Swift types,
/// conversions have one case per type, and observers compare values reliably.
enum PropertyListValue {
    /// The canonical form of a caller's value.
    /// - Throws: ``SharedDefaultsError/notPropertyList(key:path:type:)`` naming the key,
    ///   where inside the value the offender sits, and its type.
    static func normalize(_ value: Any, key: String) throws -> Any {
        try normalize(value, key: key, path: key, depth: 0)
    }

    /// Deepest nesting of arrays and dictionaries accepted: property-list parsers
    /// refuse deeper files, and the check keeps recursion off the end of a stack.
    static let maximumDepth = 256

    private static func normalize(_ value: Any, key: String, path: String, depth: Int) throws -> Any {
        if depth > maximumDepth {
            throw notPlist(key, path, "nesting deeper than \(maximumDepth) levels of arrays and dictionaries")
        }
        // An NSNumber first: a bridging cast would read NSNumber(1) as Bool.
        if type(of: value) is NSNumber.Type, let v = value as? NSNumber { return number(v) }
        switch value {
        case let v as String: return v
        case let v as Bool: return v
        case let v as Int: return v
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Data: return v
        case let v as Date: return v
        case let v as URL: return v.absoluteString
        case let v as Int8: return Int(v)
        case let v as Int16: return Int(v)
        case let v as Int32: return Int(v)
        case let v as Int64: return Int(v)
        case let v as UInt8: return Int(v)
        case let v as UInt16: return Int(v)
        case let v as UInt32: return Int(v)
        case let v as UInt: return integer(UInt64(v))
        case let v as UInt64: return integer(v)
        case let v as [Any]:
            var out: [Any] = []
            out.reserveCapacity(v.count)
            for (index, element) in v.enumerated() {
                out.append(try normalize(element, key: key, path: "\(path)[\(index)]", depth: depth + 1))
            }
            return out
        case let v as [String: Any]:
            var out: [String: Any] = [:]
            out.reserveCapacity(v.count)
            for (k, element) in v { out[k] = try normalize(element, key: key, path: "\(path).\(k)", depth: depth + 1) }
            return out
        case let v as [AnyHashable: Any]:
            var out: [String: Any] = [:]
            for (k, element) in v {
                guard let name = k.base as? String else {
                    throw notPlist(key, path, "dictionary key of type \(typeName(k.base)) (property-list dictionary keys are strings)")
                }
                // An NSDictionary may hold keys that differ only in Unicode
                // normalization; a Swift dictionary would merge them, losing one.
                guard out[name] == nil else {
                    throw notPlist(key, "\(path).\(name)", "dictionary with two keys that differ only in Unicode normalization (\"\(name)\"); a Swift dictionary cannot keep both, so nothing was written")
                }
                out[name] = try normalize(element, key: key, path: "\(path).\(name)", depth: depth + 1)
            }
            return out
        default:
            // An Optional inside a collection ([Int?]) arrives boxed as Any.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    throw notPlist(key, path, "nil (an empty Optional inside a collection; remove the element instead)")
                }
                return try normalize(wrapped, key: key, path: path, depth: depth)
            }
            throw notPlist(key, path, typeName(value))
        }
    }

    /// The canonical form of a value parsed from a file. Returns nil for what no
    /// property-list parser should produce (the file is then treated as corrupt).
    static func normalizeParsed(_ value: Any) -> Any? {
        if type(of: value) is NSNumber.Type, let v = value as? NSNumber { return number(v) }
        switch value {
        case let v as String: return v
        case let v as Bool: return v
        case let v as Int: return v
        case let v as UInt64: return integer(v)
        case let v as Double: return v
        case let v as Data: return v
        case let v as Date: return v
        case let v as [Any]:
            var out: [Any] = []
            out.reserveCapacity(v.count)
            for element in v {
                guard let n = normalizeParsed(element) else { return nil }
                out.append(n)
            }
            return out
        case let v as [String: Any]:
            return normalizeParsedDictionary(v)
        case let v as [AnyHashable: Any]:
            var out: [String: Any] = [:]
            out.reserveCapacity(v.count)
            for (k, element) in v {
                guard let name = k.base as? String, let n = normalizeParsed(element) else { return nil }
                out[name] = n
            }
            return out
        default:
            return nil
        }
    }

    static func normalizeParsedDictionary(_ v: [String: Any]) -> [String: Any]? {
        var out: [String: Any] = [:]
        out.reserveCapacity(v.count)
        for (k, element) in v {
            guard let n = normalizeParsed(element) else { return nil }
            out[k] = n
        }
        return out
    }

    /// A non-negative integer in its canonical form: Int when it fits, else UInt64.
    static func integer(_ v: UInt64) -> Any { Int(exactly: v) ?? v }

    /// An NSNumber as Bool, Int, UInt64 or Double, by the type it was made from: an
    /// unsigned one above Int.max stays that integer (it was once made a Double,
    /// 2^64-1 becoming 1.8446744073709552e19).
    private static func number(_ n: NSNumber) -> Any {
        switch String(cString: n.objCType) {
        case "c", "B":
            // Bool and Int8 share "c"; a parsed boolean arrives as Bool already,
            // so a "c" here is a caller's Bool bridged to NSNumber.
            return n.boolValue
        case "f", "d":
            return n.doubleValue
        case "Q", "L", "I", "S", "C":
            return integer(n.uint64Value)
        default:
            return n.intValue
        }
    }

    /// True when two canonical values are equal (deeply, by value).
    static func equal(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (x as String, y as String): return x == y
        case let (x as Bool, y as Bool): return x == y
        case let (x as Int, y as Int): return x == y
        case let (x as UInt64, y as UInt64): return x == y
        case let (x as Double, y as Double): return x == y || (x.isNaN && y.isNaN)
        case let (x as Data, y as Data): return x == y
        case let (x as Date, y as Date):
            // A file may hold a NaN date; it must equal itself, as a NaN real does.
            return x == y || (x.timeIntervalSinceReferenceDate.isNaN && y.timeIntervalSinceReferenceDate.isNaN)
        case let (x as [Any], y as [Any]):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { equal(v, $0) } ?? false }
        default: return false
        }
    }

    static func typeName(_ value: Any) -> String { String(describing: type(of: value)) }

    private static func notPlist(_ key: String, _ path: String, _ type: String) -> SharedDefaultsError {
        .notPropertyList(key: key, path: path, type: type)
    }
}
