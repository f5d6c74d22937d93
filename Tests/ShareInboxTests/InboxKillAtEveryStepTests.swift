import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import TestSupport
import DeviceTestSupport

/// An enqueue stages its item where no drainer reads it (a hidden
/// file in `Items/`, or a directory in `Staging/` for an item with attachments) and
/// publishes it with one rename. Here a real process is SIGKILLed just before each
/// of its enqueue's system calls in turn: every item whose publishing rename ran is
/// delivered once and whole, none other is, and a drain leaves nothing behind.
@Suite("Inbox enqueue killed at every step", .tags(.multiprocess, .killed), .dedicatedThreads)
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
        // With an attachment, the rename into Items/; without, the append to the journal log.
        let publishing = steps.firstIndex { step in
            step.count == 4 && (["rename", "renameat", "link"].contains(step[2]) && Self.isPublishedItem(step[3])
                                || step[2] == "write" && Self.isJournalLog(step[3]))
        }
        let publish = try #require(publishing, "no publishing rename among \(steps.map { $0.dropFirst().joined(separator: " ") })") + 1
        #expect(steps.count > publish, "steps after the publishing rename (its fsync) are killed too")

        var published: Set<String> = ["setup", "complete"]
        var notPublished: Set<String> = []
        for n in 1...steps.count {
            let title = "stop-\(n)"
            _ = try Self.stopAndKill(try probe(title, ["--at", String(n)]), step: n, steps: steps, finished: "ack ")
            if n > publish { published.insert(title) } else { notPublished.insert(title) }
        }

        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.app))
        // An item with an attachment leaves its staging directory behind; one without
        // leaves its writer's journal log (empty, or holding its record).
        let hidden = try FileManager.default.contentsOfDirectory(atPath: inbox.itemsDirectory.path).filter { $0.hasPrefix(".") }
        let logs = try Self.journalLogs(inbox)
        if !withAttachment { #expect(!logs.isEmpty, "the killed writers' journal logs are left") }
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
        // Every writer is dead and every log delivered: the drain removed them all
        // (and their cursors); only the consumer lock stays.
        let journalLeft = try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent("Journal").path)
        #expect(journalLeft == [".consumer.lock"], "Journal/ after the drain: \(journalLeft)")
        report("inbox kill at every step (\(withAttachment ? "with an attachment" : "no attachment")): \(steps.count) steps, publishing step at \(publish), "
            + "\(hidden.count + staging.count + logs.count) leftovers removed, \(delivered.count) delivered")
    }

    @Test("a live writer's journal log survives drains, delivered or not, and goes with the first drain after its SIGKILL")
    func liveWritersLogIsKept() throws {
        let sandbox = try Sandbox()
        let environment = sandbox.environment(sandbox.share)
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.app))
        // The first enqueue sets the inbox up; the second's calls are those of every later one.
        #expect(try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", "setup"], environment: environment).wait(timeout: 60).succeeded)
        let full = try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", "first"], environment: environment).wait(timeout: 60)
        try #require(full.succeeded, "\(full.standardError)")
        // Stop the next writer just before its record's fdatasync (after the sequence
        // lock, which a writer stopped inside would hold against every drain): its
        // log exists, holds its record and is locked.
        let steps = full.outputLines.filter { $0.hasPrefix("call ") }.map { $0.split(separator: " ", maxSplits: 3).map(String.init) }
        let append = try #require(steps.firstIndex { $0.count == 4 && $0[2] == "fdatasync" && Self.isJournalLog($0[3]) }) + 1
        let writer = try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", "second", "--at", String(append)], environment: environment)
        let stopped = writer.waitForLine(timeout: 30) { $0.hasPrefix("stopped ") }
        if stopped == nil { writer.kill() }
        try #require(stopped != nil, "the writer did not stop before its append: \(writer.wait(timeout: 30).outputLines) \(writer.wait(timeout: 30).standardError)")
        // The first writer's log (dead, delivered) goes; the live writer's stays.
        #expect(try Self.journalLogs(inbox).count == 3)
        #expect(try inbox.drain { _ in } == 3)
        #expect(try Self.journalLogs(inbox).count == 1, "a live writer's log must stay, delivered or not; the dead writers' delivered logs go")
        writer.kill()
        #expect(writer.wait(timeout: 30).signal == SIGKILL)
        #expect(try inbox.drain { _ in } == 0)
        #expect(try Self.journalLogs(inbox).isEmpty, "the dead writer's log goes with the next drain")
    }

    @Test("SIGKILL of the app before any one system call of delivering a journal item: delivered at least once, never again once its cursor was written")
    func drainKilledAtEveryStep() throws {
        let sandbox = try Sandbox()
        let appEnvironment = sandbox.environment(sandbox.app)
        // More items than kills (each run delivers at most one), in one log whose
        // writer lives (this process) through every run, so every run finds the
        // same journal: that log, its cursor, the consumer lock.
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.share), durable: false)
        let total = 200
        for i in 1...total { try inbox.enqueue(SharedItem(title: "item-\(i)")) }
        func drainProbe(_ more: [String] = []) throws -> LaunchedProcess {
            try reliabilityProbe(["inbox-drain-stop", "--group", Sandbox.group] + more, environment: appEnvironment)
        }
        // A first drain makes the cursor; the second's calls are those of delivering
        // any later journal item (counted from the drain's first call on Journal/).
        #expect(try drainProbe().wait(timeout: 60).outputLines.contains("handled item-1"))
        let full = try drainProbe().wait(timeout: 60)
        try #require(full.succeeded, "\(full.standardError)")
        #expect(full.outputLines.contains("handled item-2"))
        let steps = full.outputLines.filter { $0.hasPrefix("call ") }.map { $0.split(separator: " ", maxSplits: 3).map(String.init) }
        let cursorWrite = try #require(steps.firstIndex { $0.count == 4 && $0[2] == "pwrite" && $0[3].hasSuffix(".cursor") },
                                       "no cursor write among \(steps.map { $0.dropFirst().joined(separator: " ") })") + 1
        try #require(steps.count + 2 < total)

        var handled: [String: Int] = ["item-1": 1, "item-2": 1]
        var final: Set<String> = ["item-1", "item-2"] // handled with its cursor written: never again
        for n in 1...steps.count {
            let outcome = try Self.stopAndKill(try drainProbe(["--at", String(n)]), step: n, steps: steps, finished: "drained ")
            for title in outcome.outputLines.compactMap({ $0.hasPrefix("handled ") ? String($0.dropFirst(8)) : nil }) {
                #expect(!final.contains(title), "step \(n): \(title) was delivered again after its cursor was written")
                handled[title, default: 0] += 1
                if n > cursorWrite { final.insert(title) }
            }
        }
        try inbox.drain { item in
            let title = item.title ?? "?"
            #expect(!final.contains(title), "\(title) was delivered again after its cursor was written")
            handled[title, default: 0] += 1
        }
        let all = Set((1...total).map { "item-\($0)" })
        #expect(Set(handled.keys) == all, "every item delivered at least once: missing \(all.subtracting(handled.keys).sorted())")
        #expect(try inbox.pendingCount() == 0)
        let again = handled.values.filter { $0 > 1 }.count
        #expect(again > 0, "some kill landed between a handler's return and its cursor write: that item comes again")
        report("inbox drain killed at every step: \(steps.count) steps, cursor written at \(cursorWrite), "
            + "\(again) items delivered again after a kill before their cursor")
    }

    /// Waits for `process` (told to stop before its call number `n`) to stop, SIGKILLs
    /// it, checks it stopped before the call the full run made there, and returns
    /// what it printed.
    static func stopAndKill(_ process: LaunchedProcess, step n: Int, steps: [[String]], finished: String) throws -> ProcessOutcome {
        let line = process.waitForLine(timeout: 30) { $0.hasPrefix("stopped ") || $0.hasPrefix(finished) }
        process.kill()
        let outcome = process.wait(timeout: 30)
        let stopped = try #require(line, "step \(n): the probe neither stopped nor finished: \(outcome.standardError)")
        let fields = stopped.split(separator: " ").map(String.init)
        #expect(fields.first == "stopped" && fields.count >= 3 && fields[2] == steps[n - 1][2],
                "step \(n): stopped at \(stopped), expected before \(steps[n - 1][2]) as in the full run")
        return outcome
    }

    /// `<...>/Journal/<name>.log`: a journal log.
    static func isJournalLog(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        return parts.count >= 2 && parts[parts.count - 2] == "Journal" && parts[parts.count - 1].hasSuffix(".log")
    }

    /// The journal logs of `inbox` now.
    static func journalLogs(_ inbox: ShareInbox) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent("Journal").path).filter { $0.hasSuffix(".log") }
    }

    /// `<...>/Items/<20 digits>`: the name of a published item.
    static func isPublishedItem(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard parts.count >= 2, parts[parts.count - 2] == "Items" else { return false }
        let name = parts[parts.count - 1]
        return name.utf8.count == 20 && name.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
