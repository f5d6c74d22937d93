// The sample of the PortingUserDefaults article, compiled by `swift build`.
import Foundation
#if !canImport(Darwin)
import class SharedDefaults.UserDefaults   // the only change to the iOS source
#endif

// snippet.hide
let sharedURL = URL(string: "https://example.com/article")!
// snippet.show
extension UserDefaults {
    static let shared = UserDefaults(suiteName: "group.ai.systenics.notes")!
}
func store(_ url: URL, in defaults: UserDefaults) { defaults.set(url.absoluteString, forKey: "pendingURL") }

store(sharedURL, in: .shared)
let pending = UserDefaults.shared.string(forKey: "pendingURL")
UserDefaults.standard.set(true, forKey: "onboarded")       // the target's own domain
