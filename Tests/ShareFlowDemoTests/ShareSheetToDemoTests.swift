import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import ShareInbox
import DeviceTestSupport
import TestSupport

/// ShareFlowDemo's extension started by the simulated share sheet
/// (its ShareViewController, through ExtensionMain.run) queues what it was given, and
/// the app role receives it, file included.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ShareSheetToDemoTests {
    @Test func aURLAndAFileSharedThroughTheSheetReachTheApp() throws {
        let device = try SimulatedDevice(name: "ShareSheetToDemoTests")
        let notes = try NotesExample()
        let binary = try Demo.binary()
        let payload = try Demo.payload(device, name: "clip.bin", size: 50_000)
        let item = NSExtensionItem()
        item.attributedTitle = NSAttributedString(string: "From the sheet")
        item.attachments = [NSItemProvider(item: URL(string: "https://example.com/sheet")! as NSURL, typeIdentifier: "public.url"),
                            try #require(NSItemProvider(contentsOf: payload.url))]
        let outcome = try device.share([item], to: notes.shareExtension, built: "ShareFlowDemo",
                                       arguments: ["extension", "--group", Demo.group], timeout: 60)
        #expect(outcome.returnedItems != nil, "\(outcome)")
        #expect(Demo.shared(outcome.process.outputLines).keys.contains("https://example.com/sheet"), "\(outcome.process)")
        let app = try device.spawn(binary, Demo.app(), as: notes.app)
        let received = Demo.received(app.outputLines)
        #expect(Demo.urls(received) == ["https://example.com/sheet"], "\(app)")
        #expect(received.first?["title"] as? String == "From the sheet")
        #expect("\(received)".contains(payload.checksum), "the file arrives whole: \(received)")
    }
}
