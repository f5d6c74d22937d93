// What an iOS file gets from `import Foundation` for App Group files, this file
// gets from `import AppGroupFoundation` alone (the module re-exports Foundation),
// under MemberImportVisibility: FileManager's containerURL, NSFileCoordinator,
// NSFilePresenter's default members, ProcessInfo's expiring activity, the host
// notifications, NSItemProvider's loading members and URL's and String's
// NSItemProviderReading, NSError, URL, Data, OperationQueue.
import AppGroupFoundation
import Testing

/// A presenter that implements only the two required members: the optional ones
/// come from the protocol extension, which must be visible here.
private final class MinimalPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()
    init(_ url: URL) { presentedItemURL = url }
}

@Suite("Import visibility: AppGroupFoundation alone")
struct OnlyAppGroupFoundation {
    @Test("containerURL(forSecurityApplicationGroupIdentifier:) is reachable and answers nil for a malformed group")
    func containerURL() {
        #expect(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.a/../..") == nil)
    }

    @Test("NSFileCoordinator, NSFileAccessIntent and a presenter's default members are reachable and work")
    func coordinator() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("import-visibility-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("clipping.json")
        let presenter = MinimalPresenter(file)
        NSFileCoordinator.addFilePresenter(presenter)
        defer { NSFileCoordinator.removeFilePresenter(presenter) }
        #expect(presenter.primaryPresentedItemURL == nil)

        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: file, options: .forMerging, error: &error) { url in
            _ = try? Data("{}".utf8).write(to: url)
        }
        #expect(error == nil)
        var read: Data?
        NSFileCoordinator().coordinate(readingItemAt: file, options: .withoutChanges, error: &error) { url in
            read = try? Data(contentsOf: url)
        }
        #expect(error == nil)
        #expect(read == Data("{}".utf8))
        #expect(NSFileAccessIntent.writingIntent(with: file, options: .forDeleting).url == file)
    }

    @Test("ProcessInfo's performExpiringActivity and the extension host's notification names are reachable")
    func processInfoAndNotifications() async {
        // No device: the block just runs, once, with false.
        let expired: Bool = await withCheckedContinuation { done in
            ProcessInfo.processInfo.performExpiringActivity(withReason: "import visibility") { done.resume(returning: $0) }
        }
        #expect(expired == false)
        #expect(Notification.Name.NSExtensionHostDidEnterBackground.rawValue == "NSExtensionHostDidEnterBackgroundNotification")
    }

    @Test("NSItemProvider's loading members and String's NSItemProviderReading are reachable")
    func itemProvider() async {
        let provider = NSItemProvider(item: "a note" as NSString, typeIdentifier: "public.plain-text")
        #expect(provider.hasItemConformingToTypeIdentifier("public.text"))
        let text: String? = await withCheckedContinuation { done in
            _ = provider.loadObject(ofClass: String.self) { value, _ in done.resume(returning: value) }
        }
        #expect(text == "a note")
        #expect(extensionContext == nil) // not started by the share sheet
    }
}
