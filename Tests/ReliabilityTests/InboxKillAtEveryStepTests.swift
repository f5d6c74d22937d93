import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing

/// Issue 14, part 5: an enqueue stages its item where no drainer reads it (a hidden
/// file in `Items/`, or a directory in `Staging/` for an item with attachments) and
/// publishes it with one rename. Here a real process is SIGKILLed just before each
/// of its enqueue's system calls in turn: every item whose publishing rename ran is
/// delivered once and whole, none other is, and a drain leaves nothing behind.
@Suite("Inbox enqueue killed at every step")
struct InboxKillAtEveryStepTests {
    @Test("SIGKILL before any one system call of an enqueue: published whole or not at all, never twice, no leftover after a drain",
          arguments: [false, true])
    func killedAtEveryStep(withAttachment: Bool) throws {
        let sandbox = try Sandbox()
        let environment = sandbox.environment(sandbox.share)
        var extra: [String] = []
        let attached = Data("attached bytes".utf8)
        if withAttachment {
            let file = sandbox.scratch.appendingPathComponent("clip.txt")
            try attached.write(to: file)
            extra = ["--attachment", file.path]
        }
        func probe(_ title: String, _ more: [String] = []) throws -> LaunchedProcess {
            try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", title] + extra + more, environment: environment)
        }
        // Two enqueues run to the end: the first sets the inbox up; the second's calls
        // are the steps every later enqueue makes.
        #expect(try probe("setup").wait(timeout: 60).succeeded)
        let full = try probe("complete").wait(timeout: 60)
        try #require(full.succeeded, "\(full.standardError)")
        let steps = full.outputLines.filter { $0.hasPrefix("call ") }.map { $0.split(separator: " ", maxSplits: 3).map(String.init) }
        let publishing = steps.firstIndex { step in
            step.count == 4 && ["rename", "renameat", "link"].contains(step[2]) && Self.isPublishedItem(step[3])
        }
        let publish = try #require(publishing, "no publishing rename among \(steps.map { $0.dropFirst().joined(separator: " ") })") + 1
        #expect(steps.count > publish, "steps after the publishing rename (its fsync) are killed too")

        var published: Set<String> = ["setup", "complete"]
        var notPublished: Set<String> = []
        for n in 1...steps.count {
            let title = "stop-\(n)"
            let process = try probe(title, ["--at", String(n)])
            let line = process.waitForLine(timeout: 30) { $0.hasPrefix("stopped ") || $0.hasPrefix("ack ") }
            process.kill()
            let outcome = process.wait(timeout: 30)
            let stopped = try #require(line, "step \(n): the probe neither stopped nor finished: \(outcome.standardError)")
            let fields = stopped.split(separator: " ").map(String.init)
            #expect(fields.first == "stopped" && fields.count >= 3 && fields[2] == steps[n - 1][2],
                    "step \(n): stopped at \(stopped), expected before \(steps[n - 1][2]) as in the full run")
            if n > publish { published.insert(title) } else { notPublished.insert(title) }
        }

        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.app))
        // An item with an attachment leaves its staging directory behind; one without
        // leaves nothing where the file system makes unnamed files (O_TMPFILE), else
        // a hidden file in Items/.
        let hidden = try FileManager.default.contentsOfDirectory(atPath: inbox.itemsDirectory.path).filter { $0.hasPrefix(".") }
        let staging = try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent("Staging").path)
        if withAttachment { #expect(!staging.isEmpty, "the kills landed mid-enqueue: staging directories are left") }

        // A drain with the default age removes the hidden files of dead writers at
        // once (their locks died with them); staging directories go by age.
        var delivered: [String] = []
        try inbox.drain { item in
            delivered.append(item.title ?? "?")
            #expect(item.attachments.count == (withAttachment ? 1 : 0), "\(item.title ?? "?") came with \(item.attachments.count) attachments")
            for file in item.attachments { #expect((try? Data(contentsOf: file)) == attached, "\(item.title ?? "?")'s attachment is whole") }
        }
        let hiddenAfter = try FileManager.default.contentsOfDirectory(atPath: inbox.itemsDirectory.path)
        #expect(hiddenAfter.isEmpty, "Items/ after a drain: \(hiddenAfter)")
        inbox.removeStaleStaging(olderThan: 0)
        #expect(delivered.count == Set(delivered).count, "an item was delivered twice: \(delivered)")
        #expect(Set(delivered) == published, "delivered \(Set(delivered).sorted()), expected exactly \(published.sorted()); never \(notPublished.sorted())")
        for name in ["Items", "Staging", "Claims", "Quarantine"] {
            let left = try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent(name).path)
            #expect(left.isEmpty, "\(name)/ after the drain: \(left)")
        }
        report("inbox kill at every step (\(withAttachment ? "with an attachment" : "no attachment")): \(steps.count) steps, publishing rename at \(publish), "
            + "\(hidden.count + staging.count) leftovers removed, \(delivered.count) delivered")
    }

    @Test("a writer's hidden file survives drains while the writer lives, and goes with the first drain after its SIGKILL")
    func liveWritersFileIsKept() throws {
        let sandbox = try Sandbox()
        let environment = sandbox.environment(sandbox.share)
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.app))
        let full = try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", "first"], environment: environment).wait(timeout: 60)
        try #require(full.succeeded, "\(full.standardError)")
        // Stop the next writer at its item's fsync: the hidden file exists, written and locked.
        let steps = full.outputLines.filter { $0.hasPrefix("call ") }.map { $0.split(separator: " ", maxSplits: 3).map(String.init) }
        let sync = try #require(steps.firstIndex { $0.count == 4 && $0[2] == "fsync" && $0[3].contains("/Items/.tmp-") }) + 1
        let writer = try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", "second", "--at", String(sync)], environment: environment)
        #expect(writer.waitForLine(timeout: 30) { $0.hasPrefix("stopped ") } != nil)
        func hidden() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: inbox.itemsDirectory.path).filter { $0.hasPrefix(".") } }
        #expect(try hidden().count == 1)
        #expect(try inbox.drain { _ in } == 1)
        #expect(inbox.removeStaleStaging(olderThan: 0) == 0, "a live writer's file was removed")
        #expect(try hidden().count == 1, "a live writer's file must stay")
        writer.kill()
        #expect(writer.wait(timeout: 30).signal == SIGKILL)
        #expect(try inbox.drain { _ in } == 0)
        #expect(try hidden().isEmpty, "the dead writer's file goes with the next drain")
    }

    /// `<...>/Items/<20 digits>`: the name of a published item.
    static func isPublishedItem(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard parts.count >= 2, parts[parts.count - 2] == "Items" else { return false }
        let name = parts[parts.count - 1]
        return name.utf8.count == 20 && name.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
