import AppGroupContainer
import Foundation
import ShareInbox

/// The share extension as the share sheet starts it (`SimulatedDevice.share`): the
/// code of an iOS share extension's view controller, adopting Apple's
/// `NSExtensionRequestHandling` instead of subclassing `UIViewController`. It reads
/// the shared URLs and files with `NSItemProvider`, queues them in the group's inbox
/// and completes the request; a failure cancels it with the error. Arguments:
/// `extension --group ID` (the identity and root come from the environment the
/// device gives the target).
final class ShareViewController: NSObject, NSExtensionRequestHandling {
    let arguments: [String]

    init(arguments: [String]) {
        self.arguments = arguments
    }

    /// What the attachments gave, gathered on the providers' queue.
    final class Gathered: @unchecked Sendable {
        let lock = NSLock()
        var urls: [URL] = []
        var files: [URL] = []
        var problems: [String] = []
        func add(_ body: (Gathered) -> Void) { lock.lock(); body(self); lock.unlock() }
    }

    func beginRequest(with context: NSExtensionContext) {
        let gathered = Gathered()
        let group = DispatchGroup()
        let keep = FileManager.default.temporaryDirectory.appendingPathComponent("Shared-\(UUID().uuidString)", isDirectory: true)
        let items = extensionContext?.inputItems.compactMap { $0 as? NSExtensionItem } ?? []
        for provider in items.flatMap({ $0.attachments ?? [] }) {
            group.enter()
            if provider.hasItemConformingToTypeIdentifier("public.url") && !provider.hasItemConformingToTypeIdentifier("public.file-url") {
                provider.loadObject(ofClass: URL.self) { url, error in
                    gathered.add { if let url { $0.urls.append(url) } else { $0.problems.append("\(String(describing: error))") } }
                    group.leave()
                }
            } else if let type = provider.registeredTypeIdentifiers.first {
                // The copy the provider hands over is removed when the handler returns: keep one.
                provider.loadFileRepresentation(forTypeIdentifier: type) { url, error in
                    do {
                        guard let url else { throw error ?? CocoaError(.fileReadUnknown) }
                        try FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
                        let kept = keep.appendingPathComponent(url.lastPathComponent)
                        try FileManager.default.copyItem(at: url, to: kept)
                        gathered.add { $0.files.append(kept) }
                    } catch {
                        gathered.add { $0.problems.append("\(error)") }
                    }
                    group.leave()
                }
            } else {
                group.leave()
            }
        }
        let title = items.first?.attributedTitle?.string
        group.notify(queue: .main) {
            defer { try? FileManager.default.removeItem(at: keep) }
            do {
                guard gathered.problems.isEmpty else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: gathered.problems.joined(separator: "; ")]) }
                let inbox = try RoleIdentity(Arguments(self.arguments, options: RoleIdentity.identityOptions, flags: []), bundleSuffix: ".share").inbox()
                let attachments = gathered.files.map { SharedItem.Attachment(fileURL: $0) }
                for url in gathered.urls.isEmpty ? [nil] : gathered.urls.map(Optional.some) {
                    let number = try inbox.enqueue(SharedItem(url: url, title: title, attachments: attachments))
                    Output.line("shared \(number) \(url?.absoluteString ?? "(files only)")")
                }
                self.extensionContext?.completeRequest(returningItems: [], completionHandler: nil)
            } catch {
                Output.error("ShareFlowDemo extension: \(error)")
                self.extensionContext?.cancelRequest(withError: error)
            }
        }
    }
}
