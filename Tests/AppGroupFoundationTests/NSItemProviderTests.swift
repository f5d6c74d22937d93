import AppGroupContainer
import AppGroupFoundation
import Foundation
import Testing
import TestSupport

/// Issue 27, item 1: NSItemProvider answers as Apple's for what a share sheet carries.
@Suite struct NSItemProviderTests {
    func loadItem(_ provider: NSItemProvider, _ type: String) async -> (Any?, NSError?) {
        await withCheckedContinuation { (done: CheckedContinuation<(NSItemProviderResult), Never>) in
            provider.loadItem(forTypeIdentifier: type, options: nil) { item, error in
                done.resume(returning: NSItemProviderResult(item: item, error: error as NSError?))
            }
        }.pair
    }

    @Test func aURLProviderConformsAlongApplesTypeTree() async throws {
        let provider = NSItemProvider(item: URL(string: "https://example.com/a")! as NSURL, typeIdentifier: "public.url")
        #expect(provider.registeredTypeIdentifiers == ["public.url"])
        #expect(provider.hasItemConformingToTypeIdentifier("public.url"))
        #expect(provider.hasItemConformingToTypeIdentifier("public.data"))
        #expect(!provider.hasItemConformingToTypeIdentifier("public.file-url"))
        #expect(!provider.hasItemConformingToTypeIdentifier("public.image"))
        #expect(provider.canLoadObject(ofClass: URL.self))
        let (item, error) = await loadItem(provider, "public.url")
        #expect(error == nil)
        #expect((item as? URL)?.absoluteString == "https://example.com/a")
    }

    @Test func aTypeTheProviderLacksCompletesWithApplesError() async throws {
        let provider = NSItemProvider(item: "hello" as NSString, typeIdentifier: "public.plain-text")
        let (item, error) = await loadItem(provider, "public.image")
        #expect(item == nil)
        #expect(error?.domain == NSItemProviderErrorDomain)
        #expect(error?.code == NSItemProvider.ErrorCode.itemUnavailableError.rawValue)
        #expect(!provider.canLoadObject(ofClass: URL.self) || provider.canLoadObject(ofClass: String.self))
        let text = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            provider.loadObject(ofClass: String.self) { value, _ in done.resume(returning: value) }
        }
        #expect(text == "hello")
    }

    @Test func aFileProviderHandsOutATemporaryCopyRemovedAfterTheHandler() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("NSItemProviderTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("scan.png")
        try Data([1, 2, 3, 4]).write(to: file)
        let provider = try #require(NSItemProvider(contentsOf: file))
        #expect(provider.registeredTypeIdentifiers == ["public.png"])
        #expect(provider.hasItemConformingToTypeIdentifier("public.image"))
        let (copy, bytes) = await withCheckedContinuation { (done: CheckedContinuation<(URL?, Data?), Never>) in
            provider.loadFileRepresentation(forTypeIdentifier: "public.image") { url, _ in
                done.resume(returning: (url, url.flatMap { try? Data(contentsOf: $0) }))
            }
        }
        #expect(bytes == Data([1, 2, 3, 4]))
        let copied = try #require(copy)
        #expect(copied.standardizedFileURL != file.standardizedFileURL, "a copy, not the original")
        #expect(!FileManager.default.fileExists(atPath: copied.path), "removed once the handler returned")
        #expect(FileManager.default.fileExists(atPath: file.path), "the original stays")
        let data = await withCheckedContinuation { (done: CheckedContinuation<Data?, Never>) in
            provider.loadDataRepresentation(forTypeIdentifier: "public.png") { data, _ in done.resume(returning: data) }
        }
        #expect(data == Data([1, 2, 3, 4]))
        #expect(NSItemProvider(contentsOf: URL(string: "https://example.com")!) == nil, "not a file URL")
    }

    @Test func aWebURLHasNoFileRepresentation() async {
        let provider = NSItemProvider(item: URL(string: "https://example.com")! as NSURL, typeIdentifier: "public.url")
        let error = await withCheckedContinuation { (done: CheckedContinuation<NSError?, Never>) in
            provider.loadFileRepresentation(forTypeIdentifier: "public.url") { _, error in done.resume(returning: error as NSError?) }
        }
        #expect(error?.domain == NSItemProviderErrorDomain)
        #expect(error?.code == NSItemProvider.ErrorCode.unavailableCoercionError.rawValue)
    }

    @Test func aContextEndsOnceAndOpensURLsOnlyWhereApplesListSaysSo() async {
        let endings = Locked<[String]>([])
        let share = NSExtensionContext(inputItems: [NSExtensionItem()], extensionPoint: "com.apple.share-services",
                                       reply: { ending, then in
                                           endings.withLock { $0.append("\(ending)") }
                                           then()
                                       })
        #expect(share.inputItems.count == 1)
        let opened = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            share.open(URL(string: "notes://x")!) { done.resume(returning: $0) }
        }
        #expect(!opened, "a share extension cannot open its app")
        share.completeRequest(returningItems: [], completionHandler: nil)
        share.cancelRequest(withError: NSError(domain: "x", code: 1))
        #expect(endings.withLock { $0.count } == 1, "only the first end counts")
        let today = NSExtensionContext(inputItems: [], extensionPoint: "com.apple.widget-extension", reply: { _, then in then() })
        let todayOpened = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            today.open(URL(string: "notes://x")!) { done.resume(returning: $0) }
        }
        #expect(todayOpened, "the Today extension point is on Apple's list")
    }
}

/// A loadItem answer carried out of its handler (the item is not Sendable on its own).
struct NSItemProviderResult: @unchecked Sendable {
    let item: (any NSSecureCoding)?
    let error: NSError?
    var pair: (Any?, NSError?) { (item, error) }
}
