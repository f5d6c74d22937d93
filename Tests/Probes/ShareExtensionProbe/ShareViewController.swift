// A share extension as iOS code writes one, for the share-sheet tests: it looks at
// what it was given with Apple's API, then ends the request as its argument says.
// Only its superclass differs from an iOS share extension's view controller
// (NSObject adopting NSExtensionRequestHandling instead of UIViewController).
import AppGroupContainer
import AppGroupFoundation
import UniformTypeIdentifiers

final class ShareViewController: NSObject, NSExtensionRequestHandling {
    /// What to do once the attachments are read: complete, cancel, open, hang, exit.
    let mode: String
    let argument: String?

    init(mode: String, argument: String?) {
        self.mode = mode
        self.argument = argument
    }

    func beginRequest(with context: NSExtensionContext) {
        let group = DispatchGroup()
        let items = extensionContext?.inputItems.compactMap { $0 as? NSExtensionItem } ?? []
        report("items \(items.count)")
        for item in items {
            report("title \(item.attributedTitle?.string ?? "none")")
            for provider in item.attachments ?? [] {
                report("types \(provider.registeredTypeIdentifiers.joined(separator: ","))")
                group.enter()
                if provider.hasItemConformingToTypeIdentifier(UTType.fileURL.identifier) || provider.hasItemConformingToTypeIdentifier(UTType.image.identifier)
                    || (provider.hasItemConformingToTypeIdentifier(UTType.data.identifier) && !provider.hasItemConformingToTypeIdentifier(UTType.url.identifier)) {
                    let type = provider.registeredTypeIdentifiers[0]
                    provider.loadFileRepresentation(forTypeIdentifier: type) { url, error in
                        if let url, let data = try? Data(contentsOf: url) {
                            report("file \(url.lastPathComponent) \(data.count) bytes \(data.reduce(0) { ($0 &* 31) &+ Int($1) })")
                        } else {
                            report("file error \(String(describing: error))")
                        }
                        group.leave()
                    }
                } else if provider.hasItemConformingToTypeIdentifier(UTType.url.identifier) {
                    provider.loadItem(forTypeIdentifier: UTType.url.identifier, options: nil) { item, error in
                        if let url = (item as Any) as? URL { report("url \(url.absoluteString)") } else { report("url error \(String(describing: error))") }
                        group.leave()
                    }
                } else {
                    provider.loadObject(ofClass: String.self) { text, error in
                        report("text \(text ?? "error \(String(describing: error))")")
                        group.leave()
                    }
                }
                // Asked for what it does not have: Apple's error.
                group.enter()
                provider.loadDataRepresentation(forTypeIdentifier: "com.example.absent") { data, error in
                    let error = error as NSError?
                    report("absent \(error?.domain ?? "no error") \(error?.code ?? 0)")
                    group.leave()
                }
            }
        }
        group.notify(queue: .main) { self.finish() }
    }

    func finish() {
        switch mode {
        case "cancel":
            extensionContext?.cancelRequest(withError: NSError(domain: NSCocoaErrorDomain, code: NSUserCancelledError,
                                                              userInfo: [NSLocalizedDescriptionKey: "the user tapped Cancel"]))
        case "open":
            extensionContext?.open(URL(string: argument ?? "notes://open")!) { opened in
                report("opened \(opened)")
                self.complete()
            }
        case "complete-with-file":
            // Hands back what it was given: its files cross back as copies.
            let items = extensionContext?.inputItems ?? []
            extensionContext?.completeRequest(returningItems: items) { _ in report("completed with the input") }
        case "hang":
            report("not ending the request")
        case "exit":
            report("exiting without an answer")
            exit(0)
        default:
            complete()
        }
    }

    func complete() {
        let reply = NSExtensionItem()
        reply.attributedContentText = NSAttributedString(string: "saved")
        reply.userInfo = ["count": 1]
        reply.attachments = [NSItemProvider(item: "receipt" as NSString, typeIdentifier: "public.plain-text")]
        extensionContext?.completeRequest(returningItems: [reply]) { expired in
            report("completed expired=\(expired)")
        }
    }
}

/// One line to standard output, at once (the test reads it while the process runs).
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
