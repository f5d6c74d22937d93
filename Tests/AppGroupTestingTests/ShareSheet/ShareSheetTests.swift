import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// The simulated share sheet hands a real, sandboxed extension
/// process its input items and learns how the request ended.
@Suite(.simulatedDevices, .tags(.multiprocess))
struct ShareSheetTests {
    static func shareExtension() throws -> SimulatedTarget {
        try SimulatedTarget(name: "NotesShare", kind: .shareExtension, teamIdentifier: "A1B2C3D4E5",
                            bundleIdentifier: "com.example.notes.share", applicationGroups: ["group.com.example.notes"])
    }

    static func page(_ url: String, title: String = "A page") -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attributedTitle = NSAttributedString(string: title)
        item.attachments = [NSItemProvider(item: URL(string: url)! as NSURL, typeIdentifier: "public.url")]
        return item
    }

    @Test func anExtensionReceivesAURLAndAFileAndCompletes() async throws {
        let device = try SimulatedDevice()
        let target = try Self.shareExtension()
        let (file, bytes) = try device.makeScratchFile(named: "photo.jpg", randomBytes: 70_000)
        let item = Self.page("https://example.com/article", title: "Article")
        item.attachments?.append(try #require(NSItemProvider(contentsOf: file)))
        let outcome = try await device.share([item], to: target, built: "ShareExtensionProbe", arguments: ["complete"])
        let lines = outcome.process.outputLines
        #expect(lines.contains("title Article"), "\(outcome.process)")
        #expect(lines.contains("url https://example.com/article"), "\(outcome.process)")
        #expect(lines.contains("types public.jpeg"), "\(outcome.process)")
        let checksum = bytes.reduce(0) { ($0 &* 31) &+ Int($1) }
        #expect(lines.contains("file photo.jpg 70000 bytes \(checksum)"), "the file arrives whole, readable inside the sandbox: \(outcome.process)")
        #expect(lines.contains("absent NSItemProviderErrorDomain -1000"), "a type the provider lacks is Apple's error: \(outcome.process)")
        #expect(lines.contains("completed expired=false"), "\(outcome.process)")
        let returned = try #require(outcome.returnedItems, "\(outcome)")
        #expect(returned.count == 1)
        #expect(returned.first?.attributedContentText?.string == "saved")
        #expect(returned.first?.userInfo?["count"] as? Int == 1)
        let text = try #require(returned.first?.attachments?.first)
        let received = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            text.loadObject(ofClass: String.self) { value, _ in done.resume(returning: value) }
        }
        #expect(received == "receipt")
        #expect(outcome.process.succeeded, "\(outcome.process)")
    }

    @Test func anExtensionThatCancelsHandsItsErrorBack() async throws {
        let device = try SimulatedDevice()
        let outcome = try await device.share([Self.page("https://example.com")], to: try Self.shareExtension(),
                                             built: "ShareExtensionProbe", arguments: ["cancel"])
        guard case .cancelled(let error?) = outcome.ending else {
            Issue.record("not cancelled with an error: \(outcome)")
            return
        }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSUserCancelledError)
        #expect(error.localizedDescription == "the user tapped Cancel")
    }

    @Test func aShareExtensionCannotOpenItsApp() async throws {
        let device = try SimulatedDevice()
        let outcome = try await device.share([Self.page("https://example.com")], to: try Self.shareExtension(),
                                             built: "ShareExtensionProbe", arguments: ["open", "notes://inbox"])
        #expect(outcome.process.outputLines.contains("opened false"), "share extensions are not among the extension points that may open URLs: \(outcome.process)")
        #expect(outcome.returnedItems != nil, "\(outcome)")
    }

    @Test func anExtensionThatEndsWithoutAnAnswerCountsAsCancelled() async throws {
        let device = try SimulatedDevice()
        let outcome = try await device.share([Self.page("https://example.com")], to: try Self.shareExtension(),
                                             built: "ShareExtensionProbe", arguments: ["exit"])
        guard case .cancelled(nil) = outcome.ending else {
            Issue.record("not a cancel without an error: \(outcome)")
            return
        }
        #expect(outcome.description.contains("without completeRequest or cancelRequest"))
    }

    @Test func anExtensionThatNeverEndsTheRequestTimesOutWithAReport() async throws {
        let device = try SimulatedDevice()
        let outcome = try await device.share([Self.page("https://example.com")], to: try Self.shareExtension(),
                                             built: "ShareExtensionProbe", arguments: ["hang"], timeout: 5)
        guard case .timedOut(let seconds) = outcome.ending else {
            Issue.record("not a timeout: \(outcome)")
            return
        }
        #expect(seconds == 5)
        #expect(outcome.description.contains("neither called completeRequest"), "\(outcome)")
        #expect(outcome.process.timedOut)
    }

    /// The blocking form, from XCTest-style synchronous code.
    @Test func theSynchronousFormCompletesToo() throws {
        let device = try SimulatedDevice()
        let outcome = try device.share([Self.page("https://example.com/sync")], to: try Self.shareExtension(),
                                       built: "ShareExtensionProbe")
        #expect(outcome.process.outputLines.contains("url https://example.com/sync"), "\(outcome.process)")
        #expect(outcome.returnedItems?.count == 1, "\(outcome)")
    }
}
