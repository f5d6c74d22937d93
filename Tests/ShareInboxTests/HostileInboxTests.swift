import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// A hostile look at the inbox's hidden-file publication (session 4 review):
/// things planted in `Items/` under the hidden prefix never stall a drain, never
/// cost an item, and never lead the cleanup outside the inbox.
@Suite("Hostile inbox", .tags(.hostile, .multiprocess, .python), .dedicatedThreads)
struct HostileInboxTests {
    /// Every entry of `Items/` that starts with ".".
    private static func hidden(_ inbox: ShareInbox) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: inbox.itemsDirectory.path).filter { $0.hasPrefix(".") })
    }

    @Test("planted .tmp- entries (FIFO, link, directory, another user's file, a file a foreign process locks forever): drains finish and deliver every item")
    func plantedHiddenEntries() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.app))
        /// The share extension enqueues `title` in a process of its own.
        func share(_ title: String) throws {
            let outcome = try reliabilityProbe(["inbox-stop", "--group", Sandbox.group, "--title", title],
                                               environment: sandbox.environment(sandbox.share)).wait(timeout: 60)
            try #require(outcome.succeeded, "\(outcome.standardError)")
        }
        try share("one")
        let items = inbox.itemsDirectory

        // What a hostile process of the same user (or root) may put there.
        let target = sandbox.outside.appendingPathComponent("precious")
        try Data("keep me".utf8).write(to: target)
        #expect(mkfifo(items.appendingPathComponent(".tmp-fifo").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(at: items.appendingPathComponent(".tmp-link"), withDestinationURL: target)
        let directory = items.appendingPathComponent(".tmp-dir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: directory.appendingPathComponent("f"))
        let foreign = items.appendingPathComponent(".tmp-nobody")
        try Data("x".utf8).write(to: foreign)
        // Another user's file needs root to plant; without root the entry is the
        // process's own, and the rest of the case still runs.
        if Privileges.isRoot { #expect(chown(foreign.path, 65534, 65534) == 0) }
        let held = items.appendingPathComponent(".tmp-held")
        try Data("held".utf8).write(to: held)
        // POSIX record locks and the inbox's OFD locks conflict: this holds the file's lock until killed.
        let script = "import fcntl,sys,time\nf=open(sys.argv[1],'r+')\nfcntl.lockf(f,fcntl.LOCK_EX)\nprint('held',flush=True)\ntime.sleep(600)"
        let holder = try LaunchedProcess(executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script, held.path],
                                         environment: ProcessInfo.processInfo.environment)
        defer { holder.kill(); holder.wait(timeout: 30) }
        try #require(holder.waitForLine("held", timeout: 30), "python3 did not take the lock: \(holder.standardError)")

        try share("two")
        var titles: [String] = []
        #expect(try inbox.drain { titles.append($0.title ?? "?") } == 2)
        #expect(titles == ["one", "two"])
        inbox.removeStaleStaging(olderThan: 0)
        #expect((try? Data(contentsOf: target)) == Data("keep me".utf8), "the link's target was touched")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("f").path), "a planted directory is not the cleanup's to empty")
        #expect((try? Data(contentsOf: held)) == Data("held".utf8), "a file whose lock is held stays")
        let left = try Self.hidden(inbox)
        #expect(!left.contains(".tmp-fifo") && !left.contains(".tmp-link"), "planted FIFO and link go by age: \(left)")

        // The holder dies: its file goes with the next drain, which still delivers.
        holder.kill()
        #expect(holder.wait(timeout: 30).signal == SIGKILL)
        try share("three")
        #expect(try inbox.drain { titles.append($0.title ?? "?") } == 1)
        #expect(titles == ["one", "two", "three"])
        #expect(!(try Self.hidden(inbox)).contains(".tmp-held"), "the dead holder's file was left")
        #expect(sandbox.outsideContents() == ["precious"])
    }

    @Test("numbers planted in Items/ ahead of the sequence (a file, a directory, a link): the hidden file's rename never replaces one, and the item gets the next free number")
    func plantedNumbersAreNeverReplaced() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        #expect(try inbox.enqueue(SharedItem(title: "one")) == 1)
        let items = inbox.itemsDirectory
        func name(_ n: Int) -> URL { items.appendingPathComponent(String(repeating: "0", count: 19) + String(n)) }
        let planted = Data("planted, not an item".utf8)
        try planted.write(to: name(2))
        try FileManager.default.createDirectory(at: name(3), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(at: name(4), withDestinationURL: sandbox.outside.appendingPathComponent("target"))
        #expect(try inbox.enqueue(SharedItem(title: "five")) == 5)
        #expect((try? Data(contentsOf: name(2))) == planted, "the planted file was replaced")
        #expect(FileManager.default.fileExists(atPath: name(3).path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: name(4).path)) != nil, "the planted link was replaced")
        var titles: [String] = []
        try inbox.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["one", "five"], "the planted entries are quarantined, never delivered")
        #expect(sandbox.outsideContents().isEmpty)
    }
}
