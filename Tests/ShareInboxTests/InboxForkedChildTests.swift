import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// Why in-process journal tests failed now and then: a child forked by another thread
/// (another test's probe) holds copies of every descriptor until it execs, and an
/// OFD lock belongs to the open file description those copies share. A lock the
/// inbox let go of only by closing its descriptor stayed held by the child, so the
/// next drain found the journal's consumer lock taken (and delivered nothing from
/// the journal), or a writer that had ended still alive (its log never removed).
@Suite("A child forked while the inbox held its locks", .tags(.hostile, .multiprocess), .dedicatedThreads)
struct InboxForkedChildTests {
    @Test("a child forked mid-drain keeps copies of the drain's and a writer's locked descriptors: the next drain still reads the journal, and the log of the writer that ended goes")
    func childKeepsCopiesOfLockedDescriptors() throws {
        let sandbox = try Sandbox()
        let app = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(), durable: false)
        var writer: ShareInbox? = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        try writer?.enqueue(SharedItem(title: "one"))
        var child: ForkedChild?
        defer { child?.release() }
        var titles: [String] = []
        // Forked while the drain holds the consumer lock and the writer its log's lock.
        try app.drain { item in
            titles.append(item.title ?? "?")
            child = try ForkedChild(keepingDescriptorsUnder: sandbox.base.path)
        }
        try writer?.enqueue(SharedItem(title: "two"))
        try app.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one", "two"], "the drain that returned let go of the journal's consumer lock")
        writer = nil // the instance ends: its log's lock goes
        #expect(try app.drain { _ in } == 0)
        #expect(try HostileJournalTests.logs(app).isEmpty, "the delivered log of a writer that ended is removed")
    }
}
