// The share extension's principal object, as iOS code writes it: it reads the URL
// the share sheet gave it with NSItemProvider, queues it for the app and finishes.
// On iOS this class subclasses UIViewController and Info.plist names it as
// NSExtensionPrincipalClass; on Linux it adopts Apple's NSExtensionRequestHandling
// and main.swift names it (ExtensionMain.run). The body is the same on both.
import Foundation
import NotesShared
#if !canImport(Darwin)
import AppGroupFoundation  // NSExtensionContext, NSItemProvider and `extensionContext` on Linux
#endif

final class ShareViewController: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        guard let item = extensionContext?.inputItems.first as? NSExtensionItem,
              let provider = item.attachments?.first(where: { $0.hasItemConformingToTypeIdentifier("public.url") }) else {
            extensionContext?.cancelRequest(withError: NSError(domain: "NotesShare", code: 1,
                                                               userInfo: [NSLocalizedDescriptionKey: "nothing to share: no URL"]))
            return
        }
        _ = provider.loadObject(ofClass: URL.self) { url, error in
            DispatchQueue.main.async {
                do {
                    guard let url else { throw error ?? NotesError.appGroupUnavailable(group: NotesGroup.identifier) }
                    try ShareExtension.share(url)
                    print("shared \(url.absoluteString)")
                    // Hand control back. The URL stays in the container until the app reads it.
                    self.extensionContext?.completeRequest(returningItems: [], completionHandler: nil)
                } catch {
                    self.extensionContext?.cancelRequest(withError: error)
                }
            }
        }
    }
}
