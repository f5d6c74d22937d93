import Foundation
#if !canImport(Darwin)
import class SharedDefaults.UserDefaults // the App Group suites on Linux
#endif

/// Small values the targets share through the group's defaults suite.
public struct NotesSettings {
    private let defaults: UserDefaults

    /// The group's suite. As on iOS, a target that has not joined the group still
    /// gets a suite, its own private one, which no other target reads.
    /// Nil only where `UserDefaults(suiteName:)` is nil.
    public init?() {
        guard let defaults = UserDefaults(suiteName: NotesGroup.identifier) else { return nil }
        self.defaults = defaults
    }

    /// The URL the share extension received last (the app shows it).
    public var lastSharedURL: URL? {
        get { defaults.string(forKey: "lastSharedURL").flatMap(URL.init(string:)) }
        nonmutating set { defaults.set(newValue?.absoluteString, forKey: "lastSharedURL") }
    }
}
