#if !canImport(Darwin)
import Foundation
import AppGroupContainer

// The Darwin notify center with Apple's signatures (CFNotificationCenter.h), on the
// device's signal table (README.md in this folder). Names only: `object` and
// `userInfo` are ignored, as Apple documents for this center. Callbacks run on the
// main queue (the main thread's run loop on Apple's platforms): a process that
// never runs its main queue or run loop hears nothing, as on iOS.

/// The Darwin notify center: notifications by name between the processes of the
/// device (an app and its extensions), as Apple's.
public func CFNotificationCenterGetDarwinNotifyCenter() -> CFNotificationCenter! {
    DarwinCenterObservers.center
}

/// Calls `callBack` on the main queue after each post of `name` by any process of
/// the device (this one included): at least once after any number of posts made
/// while this process was busy or suspended. `observer` identifies the
/// registration (for removal) and is passed back to `callBack`; `object` and
/// `suspensionBehavior` are ignored, as Apple's Darwin center ignores them. A nil,
/// empty or over-long name (more than 1,024 UTF-8 bytes) is reported and ignored.
public func CFNotificationCenterAddObserver(_ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!,
                                            _ callBack: CFNotificationCallback!, _ name: CFString!,
                                            _ object: UnsafeRawPointer!, _ suspensionBehavior: CFNotificationSuspensionBehavior) {
    guard let callBack, let name else {
        Diagnostics.warn("CFNotificationCenterAddObserver: a Darwin notify center observer needs a callback and a name; nothing was added")
        return
    }
    DarwinCenterObservers.add(observer: observer, name: name, callback: callBack)
}

/// Stops the calls of `observer` for `name` (every name when `name` is nil).
public func CFNotificationCenterRemoveObserver(_ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!,
                                               _ name: CFNotificationName!, _ object: UnsafeRawPointer!) {
    DarwinCenterObservers.remove(observer: observer, name: name?.rawValue)
}

/// Stops every call of `observer`.
public func CFNotificationCenterRemoveEveryObserver(_ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!) {
    DarwinCenterObservers.remove(observer: observer, name: nil)
}

/// Posts `name` to every observer of it in the processes of the device. `object`,
/// `userInfo` and `deliverImmediately` are ignored, as Apple's Darwin center
/// ignores them. A bad name is reported and not posted.
public func CFNotificationCenterPostNotification(_ center: CFNotificationCenter!, _ name: CFNotificationName!,
                                                 _ object: UnsafeRawPointer!, _ userInfo: CFDictionary!,
                                                 _ deliverImmediately: Bool) {
    guard let name = name?.rawValue else {
        Diagnostics.warn("CFNotificationCenterPostNotification: a nil name was not posted")
        return
    }
    if let problem = DarwinNotifications.problem(name) {
        Diagnostics.warn("CFNotificationCenterPostNotification: \"\(name.prefix(64))\" was not posted: \(problem)")
        return
    }
    DarwinNotifications.deviceTable()?.post(name)
}

/// The Darwin center's registrations of this process, by observer pointer and name.
enum DarwinCenterObservers {
    static let center = CFNotificationCenter()

    private struct Key: Hashable {
        let observer: UInt
        let name: String
    }

    private static let registrations = Locked<[Key: SignalObservation]>([:])

    static func add(observer: UnsafeRawPointer?, name: String, callback: @escaping CFNotificationCallback) {
        if let problem = DarwinNotifications.problem(name) {
            Diagnostics.warn("CFNotificationCenterAddObserver: no observer was added for \"\(name.prefix(64))\": \(problem)")
            return
        }
        guard let table = DarwinNotifications.deviceTable() else { return }
        let pointer = UInt(bitPattern: observer)
        let notification = CFNotificationName(rawValue: name)
        let observation = table.observe(name) {
            DispatchQueue.main.async {
                callback(center, UnsafeMutableRawPointer(bitPattern: pointer), notification, nil, nil)
            }
        }
        // Adding the same observer for the same name again replaces it, so one post
        // calls it once.
        let replaced = registrations.withLock { $0.updateValue(observation, forKey: Key(observer: pointer, name: name)) }
        replaced?.cancel()
    }

    static func remove(observer: UnsafeRawPointer?, name: String?) {
        let pointer = UInt(bitPattern: observer)
        let removed = registrations.withLock { all -> [SignalObservation] in
            let keys = all.keys.filter { $0.observer == pointer && (name == nil || $0.name == name) }
            return keys.compactMap { all.removeValue(forKey: $0) }
        }
        for observation in removed { observation.cancel() }
    }
}
#endif
