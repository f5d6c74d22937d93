#if !canImport(Darwin)
import Foundation

/// Canonical values as Apple's `UserDefaults` hands them out: numbers and
/// booleans as `NSNumber`, at every depth, so that the casts iOS code makes work
/// here too (a stored Int `as? Double`, a Float `as? Float`, `1 as? Bool`).
/// Strings, data and dates stay Swift values: they cast to their NS types and back.
enum FoundationValues {
    static func bridge(_ value: Any) -> Any {
        switch value {
        case let v as Bool: return NSNumber(value: v)
        case let v as Int: return NSNumber(value: v)
        case let v as UInt64: return NSNumber(value: v)
        case let v as Double: return NSNumber(value: v)
        case let v as [Any]: return v.map(bridge)
        case let v as [String: Any]: return v.mapValues(bridge)
        default: return value
        }
    }
}
#endif
