// The platform guide's share extension, as the ShareExtensionsOnLinux article shows
// it, compiled by `swift build` (Linux: on Apple's platforms these are Apple's names).
// snippet.hide
#if !canImport(Darwin)
// snippet.show
import Foundation
#if !canImport(Darwin)
import AppGroupFoundation                   // NSExtensionContext and `extensionContext`
import class SharedDefaults.UserDefaults    // the group's suite
#endif
// snippet.hide
let sharedURL = URL(string: "https://example.com")!
// snippet.show

// Runs in the extension's process.
let defaults = UserDefaults(suiteName: "group.ai.systenics.notes")
defaults?.set(sharedURL.absoluteString, forKey: "pendingURL")

// Hand control back. The URL stays in the container until the app reads it.
extensionContext?.completeRequest(returningItems: [], completionHandler: nil)
// snippet.hide
#endif
