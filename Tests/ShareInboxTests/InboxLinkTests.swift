import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import ShareInbox

/// Symbolic links planted among an inbox's items and handed over as attachments,
/// pointing outside the root: never delivered, followed or copied (the links of
/// every store: AppGroupContainerTests' SymlinkTests).
@Suite("Planted symbolic links: the inbox", .tags(.hostile), .dedicatedThreads)
struct InboxLinkTests {
    @Test("a link planted among an inbox's items is never delivered and never followed")
    func inboxItemLink() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "real"))
        // Outside: a directory that looks like an item, with a record of its own.
        let fake = sandbox.outside.appendingPathComponent("fake", isDirectory: true)
        try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
        let record = #"{"version":1,"title":"planted","kind":"public.url","date":0,"attachments":[]}"#
        try Data(record.utf8).write(to: fake.appendingPathComponent(ShareInbox.recordFileName))
        let victim = try target(sandbox)
        try FileManager.default.createSymbolicLink(at: inbox.itemsDirectory.appendingPathComponent("00000000000000000002"), withDestinationURL: fake)
        try FileManager.default.createSymbolicLink(at: inbox.itemsDirectory.appendingPathComponent("00000000000000000003"), withDestinationURL: victim)
        // An enqueue must not publish through the links either.
        try inbox.enqueue(SharedItem(title: "after"))
        var titles: [String] = []
        try inbox.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["real", "after"], "only real items are delivered: \(titles)")
        expectUntouched(sandbox, ["fake", "fake/item.json", "victim"])
        #expect((try? Data(contentsOf: fake.appendingPathComponent(ShareInbox.recordFileName))) == Data(record.utf8))
    }

    @Test("an attachment that is a link, or a path through '..', is refused")
    func attachmentLinks() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let victim = try target(sandbox)
        let link = sandbox.scratch.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        #expect(throws: ShareInboxError.self) { try inbox.enqueue(SharedItem(title: "t", attachments: [.init(fileURL: link)])) }
        #expect(try inbox.pendingCount() == 0)
        expectUntouched(sandbox, ["victim"])
    }
}
