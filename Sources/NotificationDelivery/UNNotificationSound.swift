import Foundation

/// The name of a sound file in the app's bundle, as Apple's `UNNotificationSoundName`.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The sound a notification plays, as Apple's `UNNotificationSound`.
public final class UNNotificationSound: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked: immutable after init.
    let stored: StoredSound

    init(stored: StoredSound) { self.stored = stored }

    /// The system's default sound.
    public class var `default`: UNNotificationSound { UNNotificationSound(stored: .default) }

    /// A sound file of the app's bundle.
    public convenience init(named name: UNNotificationSoundName) { self.init(stored: .named(name.rawValue)) }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationSound)?.stored == stored }
    public override var hash: Int { stored.hashValue }
}

/// A sound as the records keep it.
enum StoredSound: Codable, Hashable, Sendable, CustomStringConvertible {
    case `default`
    case named(String)

    var description: String {
        switch self {
        case .default: "default"
        case .named(let name): name
        }
    }
}
