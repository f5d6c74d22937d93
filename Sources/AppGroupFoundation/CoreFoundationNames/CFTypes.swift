#if !canImport(Darwin)
import Foundation
import AppGroupContainer

// Core Foundation's types, as the Swift types Foundation on Linux has for them:
// CoreFoundationNames/README.md says why they are declared here and why they are
// aliases. The keychain's vocabulary (SharedKeychain, `import Security`), the
// Darwin notify center and the preferences functions all use these same types.

/// A Core Foundation string; here a Swift `String`, so `"name" as CFString` and
/// `kSecClass as String` are no-ops and `[CFString: Any]` is `[String: Any]`.
public typealias CFString = String
/// A Core Foundation dictionary; `NSDictionary` bridges to and from `[String: Any]`
/// and `[CFString: Any]`.
public typealias CFDictionary = NSDictionary
/// A Core Foundation array.
public typealias CFArray = NSArray
/// Core Foundation data.
public typealias CFData = NSData
/// A Core Foundation number.
public typealias CFNumber = NSNumber
/// A Core Foundation boolean: an `NSNumber` holding a Bool, as `kCFBooleanTrue` is on Apple's platforms.
public typealias CFBoolean = NSNumber
/// A Core Foundation error; `NSError` here, so `error.takeRetainedValue() as Error` works.
public typealias CFError = NSError
/// Any Core Foundation object. Results come back as `Data`, `[String: Any]` or
/// arrays of them, and cast as on iOS: `as? Data`, `as? NSData`, `as? [String: Any]`,
/// `as? NSDictionary`, `as? [[String: Any]]`, `as? NSArray`.
public typealias CFTypeRef = AnyObject

/// `kCFBooleanTrue`, typed as Apple's (`CFBoolean!`): `kCFBooleanTrue!` and
/// `kCFBooleanTrue as Any` both compile, and the keychain reads both as true.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// `kCFBooleanFalse`.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// A Core Foundation allocator; only ``kCFAllocatorDefault`` exists here.
public final class CFAllocator: Sendable {}
/// The default allocator, as passed to `SecAccessControlCreateWithFlags`; nil, as on Apple's platforms.
public let kCFAllocatorDefault: CFAllocator! = nil

/// `CFOptionFlags`: the raw type of Core Foundation option sets.
public typealias CFOptionFlags = UInt

/// A property-list object (a string, number, date, data, array or dictionary), as
/// Apple's `CFPropertyList`; cast it with `as?` to the Swift type expected.
public typealias CFPropertyList = CFTypeRef

/// Core Foundation's signed count and index type, as Apple's `CFIndex`.
public typealias CFIndex = Int
#endif
