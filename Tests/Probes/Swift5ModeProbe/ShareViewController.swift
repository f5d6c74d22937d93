// A share extension's principal class in Swift 5 idiom: mutable state on the
// instance, completion handlers that capture self, no Sendable annotations.
#if !canImport(Darwin)
import AppGroupFoundation
import Foundation
import class SharedDefaults.UserDefaults // the group's suites, in place of Foundation's
import UniformTypeIdentifiers

class ShareViewController: NSObject, NSExtensionRequestHandling {
    var received: [String] = []

    func beginRequest(with context: NSExtensionContext) {
        let attachments = (context.inputItems.first as? NSExtensionItem)?.attachments ?? []
        guard let provider = attachments.first, provider.hasItemConformingToTypeIdentifier(UTType.url.identifier) else {
            context.cancelRequest(withError: NSError(domain: NSCocoaErrorDomain, code: NSFeatureUnsupportedError))
            return
        }
        provider.loadItem(forTypeIdentifier: UTType.url.identifier, options: nil) { item, _ in
            DispatchQueue.main.async {
                // `item as? URL` works too, with a warning on Linux (ShareExtensionsOnLinux).
                if let url = (item as Any) as? URL { self.received.append(url.absoluteString) }
                self.save()
                self.extensionContext?.completeRequest(returningItems: [], completionHandler: nil)
            }
        }
    }

    func save() {
        let defaults = UserDefaults(suiteName: NotesApp.group)
        var pending = defaults?.stringArray(forKey: "pending") ?? []
        pending.append(contentsOf: received)
        defaults?.set(pending, forKey: "pending")
        print("saved \(pending.count)")
    }
}
#endif
