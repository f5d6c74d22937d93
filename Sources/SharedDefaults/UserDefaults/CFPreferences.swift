#if !canImport(Darwin)
import AppGroupContainer
import Foundation

// Core Foundation's preferences functions over the same suites as UserDefaults:
// iOS code that reads or writes a group's suite with CFPreferences (a capture
// store's `CFPreferencesAppSynchronize("group.x" as CFString)`) compiles with an
// import line added and reads and writes the very files `UserDefaults(suiteName:)`
// does, through the same object: the same locking, durable writes, exact key
// spelling (UTF-16 code units, as CFString compares) and change notices.
// The CF types are AppGroupContainer's (CoreFoundationNames/).

/// The current user's preferences (`kCFPreferencesCurrentUser`), the only user here.
public let kCFPreferencesCurrentUser: CFString = "kCFPreferencesCurrentUser"
/// Every user's preferences (`kCFPreferencesAnyUser`): not kept here (no values).
public let kCFPreferencesAnyUser: CFString = "kCFPreferencesAnyUser"
/// Preferences of this host only (`kCFPreferencesCurrentHost`): not kept here (no values).
public let kCFPreferencesCurrentHost: CFString = "kCFPreferencesCurrentHost"
/// Preferences of any host (`kCFPreferencesAnyHost`), where the App functions read and write.
public let kCFPreferencesAnyHost: CFString = "kCFPreferencesAnyHost"
/// The calling target's own domain (`UserDefaults.standard`).
public let kCFPreferencesCurrentApplication: CFString = "kCFPreferencesCurrentApplication"
/// The global domain (`NSGlobalDomain`): not kept here, as `UserDefaults(suiteName:)` has none.
public let kCFPreferencesAnyApplication: CFString = "kCFPreferencesAnyApplication"

/// The value of `key` in `applicationID`'s domain (a group identifier is the group's
/// suite, ``kCFPreferencesCurrentApplication`` the target's own), as stored: no
/// registered default and no launch argument, as Apple's function reads.
/// Strings come as `NSString`, numbers as `NSNumber`, and so on: cast with `as?`.
/// Nil for a key not set, or a domain this target cannot open (said through
/// `Diagnostics.handler`).
public func CFPreferencesCopyAppValue(_ key: CFString, _ applicationID: CFString) -> CFPropertyList? {
    guard let suite = CFPreferencesDomains.suite(applicationID, "CFPreferencesCopyAppValue") else { return nil }
    do {
        return try suite.persistentValue(forKey: key).map(CFPreferencesDomains.object)
    } catch {
        Diagnostics.warn("CFPreferencesCopyAppValue(\(SharedDefaults.quoted(key)), \(SharedDefaults.quoted(applicationID))): \(error)")
        return nil
    }
}

/// Sets `key` to `value` in `applicationID`'s domain, or removes it when `value` is
/// nil, as `UserDefaults.set(_:forKey:)` on the same suite does (written when it
/// returns; a failure is said through `Diagnostics.handler` and kept in the suite's
/// `lastError`).
public func CFPreferencesSetAppValue(_ key: CFString, _ value: CFPropertyList?, _ applicationID: CFString) {
    guard let defaults = CFPreferencesDomains.defaults(applicationID, "CFPreferencesSetAppValue") else { return }
    defaults.set(value.map { $0 as Any }, forKey: key)
}

/// Writes are durable when they return and reads see every process's latest
/// write, so there is nothing to synchronize: true when the domain can be opened.
public func CFPreferencesAppSynchronize(_ applicationID: CFString) -> Bool {
    CFPreferencesDomains.defaults(applicationID, "CFPreferencesAppSynchronize") != nil
}

/// The keys of `applicationID`'s domain, exactly as stored, as an array of strings;
/// nil when there are none, and for the user and host domains not kept here (only
/// ``kCFPreferencesCurrentUser`` with ``kCFPreferencesAnyHost`` holds values).
public func CFPreferencesCopyKeyList(_ applicationID: CFString, _ userName: CFString, _ hostName: CFString) -> CFArray? {
    guard userName == kCFPreferencesCurrentUser, hostName == kCFPreferencesAnyHost,
          let suite = CFPreferencesDomains.suite(applicationID, "CFPreferencesCopyKeyList") else { return nil }
    do {
        let keys = try suite.storedKeys()
        return keys.isEmpty ? nil : NSArray(array: keys.map { NSString(string: $0) })
    } catch {
        Diagnostics.warn("CFPreferencesCopyKeyList(\(SharedDefaults.quoted(applicationID))): \(error)")
        return nil
    }
}

/// Whether an administrator forces `key` (a configuration profile): never here.
public func CFPreferencesAppValueIsForced(_ key: CFString, _ applicationID: CFString) -> Bool { false }

/// The UserDefaults object of a CFPreferences application ID.
enum CFPreferencesDomains {
    static func defaults(_ applicationID: CFString, _ function: String) -> UserDefaults? {
        switch applicationID {
        case kCFPreferencesCurrentApplication:
            return UserDefaults.standard
        case kCFPreferencesAnyApplication:
            Diagnostics.warn("\(function): kCFPreferencesAnyApplication (the global domain) is not kept by the emulator; nothing is read or written")
            return nil
        default:
            return UserDefaults(suiteName: applicationID)
        }
    }

    static func suite(_ applicationID: CFString, _ function: String) -> SharedDefaults? {
        defaults(applicationID, function)?.suite(during: function)
    }

    /// A stored value as the Foundation object Core Foundation hands back.
    static func object(_ value: Any) -> AnyObject {
        switch value {
        case let number as NSNumber: return number
        case let string as String: return NSString(string: string)
        case let data as Data: return NSData(data: data)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let array as [Any]: return NSArray(array: array.map(object))
        case let dictionary as [String: Any]: return NSDictionary(dictionary: dictionary.mapValues(object))
        default: return value as AnyObject
        }
    }
}
#endif
