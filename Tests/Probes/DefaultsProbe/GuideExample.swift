// The App Groups guide's defaults code, run as the share extension's process and
// as the app's. The statements in the two functions are the guide's own, unchanged;
// only import lines differ from the iOS source:
import Foundation
#if !canImport(Darwin)
// Added: on Linux this picks the emulator's UserDefaults (an App Group suite
// shared between processes) instead of Foundation's, which has no App Groups.
import class SharedDefaults.UserDefaults
// Added: NSExtensionContext and `extensionContext` (Foundation's on Apple's platforms).
import AppGroupContainer
import AppGroupFoundation
#endif
import ProbeSupport  // Added: `say`, how the probe reports to the test.

/// The guide's "Extension - write, then finish", whole. Run by the probe outside a
/// share request, `extensionContext` is nil and the last line does nothing.
func guideExtensionWrites(_ sharedURL: URL) {
    // Runs in the extension's process.
    let defaults = UserDefaults(suiteName: "group.ai.systenics.notes")
    defaults?.set(sharedURL.absoluteString, forKey: "pendingURL")

    // Hand control back. The URL stays in the container until the app reads it.
    extensionContext?.completeRequest(returningItems: [], completionHandler: nil)
}

/// The guide's "App - read, then clear".
func guideAppReads() {
    // Runs in the app's process, on launch or resume.
    let defaults = UserDefaults(suiteName: "group.ai.systenics.notes")

    if let pending = defaults?.string(forKey: "pendingURL") {
        defaults?.removeObject(forKey: "pendingURL")  // consume once
        save(pending)
    }
}

/// The app's own `save`, which the guide leaves to the reader: reports what it got.
func save(_ pending: String) {
    say("saved \(pending)")
}
