import AppGroupTesting
import AppGroupContainer
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport

/// Re-entrancy in the share inbox: code run inside a drain's
/// handler that uses the same inbox (or another instance of it) again. A nested
/// drain or enqueue must neither deliver an item twice nor lose one.
@Suite("Inbox re-entrancy", .dedicatedThreads)
struct InboxReentrancyTests {
    @Test("a drain inside a drain's handler delivers every item exactly once", arguments: [false, true])
    func drainInsideDrain(_ secondInstance: Bool) throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let other = secondInstance ? try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver()) : inbox
        for i in 1...4 { try inbox.enqueue(SharedItem(title: "item-\(i)")) }
        var delivered: [String] = []
        var nestedErrors: [String] = []
        try inbox.drain(maximumCount: 1) { outer in
            delivered.append(outer.title ?? "?")
            do {
                try other.drain { delivered.append($0.title ?? "?") }
            } catch {
                nestedErrors.append("\(error)")
            }
        }
        try inbox.drain { delivered.append($0.title ?? "?") }
        #expect(delivered.sorted() == ["item-1", "item-2", "item-3", "item-4"], "each item once: \(delivered); nested errors: \(nestedErrors)")
        #expect(try inbox.pendingCount() == 0)
    }

    @Test("an enqueue inside a drain's handler is delivered by a later drain, once")
    func enqueueInsideDrain() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "first"))
        var delivered: [String] = []
        try inbox.drain { item in
            delivered.append(item.title ?? "?")
            if item.title == "first" { try inbox.enqueue(SharedItem(title: "from-handler")) }
        }
        try inbox.drain { delivered.append($0.title ?? "?") }
        #expect(delivered.filter { $0 == "first" }.count == 1)
        #expect(delivered.filter { $0 == "from-handler" }.count == 1, "\(delivered)")
    }
}
