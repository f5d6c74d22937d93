// Everyday iOS idioms over UserDefaults, written as iOS code writes them; only
// the scoped import differs (it picks the emulator's UserDefaults on Linux).
import Foundation
#if !canImport(Darwin)
import class SharedDefaults.UserDefaults
#endif

extension UserDefaults {
    /// The app's shared suite, as apps declare it (compiles in Swift 6: the type is Sendable, as iOS's is).
    static let shared = UserDefaults(suiteName: "group.ai.systenics.notes")!
}

/// An API typed `UserDefaults`, given the shared suite by its caller.
func store(_ url: URL, in defaults: UserDefaults) {
    defaults.set(url.absoluteString, forKey: "lastURL")
}
