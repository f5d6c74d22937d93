#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// The name of a notification posted to a `CFNotificationCenter`, as Apple's
/// `CFNotificationName`: `CFNotificationName("group.notes.changed" as CFString)`.
public struct CFNotificationName: RawRepresentable, Hashable, Sendable {
    /// The name's string.
    public var rawValue: CFString

    /// The notification name `rawValue`.
    public init(_ rawValue: CFString) {
        self.rawValue = rawValue
    }

    /// The notification name `rawValue`.
    public init(rawValue: CFString) {
        self.rawValue = rawValue
    }
}

/// A notification center, as Apple's `CFNotificationCenter`. The one center here
/// is the Darwin notify center (`CFNotificationCenterGetDarwinNotifyCenter()`):
/// names only, across the processes of one device.
public final class CFNotificationCenter: @unchecked Sendable {
    // Stateless handle: the center's observers live in the Darwin center's
    // registry, so sharing the handle across threads is safe.
    init() {}
}

/// The function a `CFNotificationCenter` calls for a notification, as Apple's
/// `CFNotificationCallback`: the center, the observer pointer given when adding
/// it, the name, the object and the user info (the last two always nil from the
/// Darwin notify center).
///
/// A `@Sendable` Swift function type rather than Apple's `@convention(c)` (see
/// `CoreFoundationNames/README.md`); every closure Apple's type accepts is accepted.
public typealias CFNotificationCallback = @Sendable (CFNotificationCenter?, UnsafeMutableRawPointer?, CFNotificationName?,
                                                     UnsafeRawPointer?, CFDictionary?) -> Void

/// What a center does with a notification for an observer whose process is not
/// running, as Apple's `CFNotificationSuspensionBehavior`. The Darwin notify
/// center ignores it (Apple's does too): a suspended process gets, on resuming,
/// one notice per name posted while it was suspended.
public enum CFNotificationSuspensionBehavior: Int, Sendable {
    /// Drop notifications posted while suspended.
    case drop = 1
    /// Deliver one of many notifications posted while suspended.
    case coalesce = 2
    /// Hold every notification posted while suspended.
    case hold = 3
    /// Deliver at once, even while suspended.
    case deliverImmediately = 4
}
#endif
