import AppGroupContainer
import AppGroupFoundation
import AppGroupSystem
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

extension MultiProcess {
    /// Presenters in another process are asked before a coordinated access, as
    /// iOS's file coordination daemon asks them (issue 26 item 4, issue 25 item 5).
    /// The presenter is AppGroupProbe's `ns-present`, which prints each message.
    @Suite("NSFilePresenter in another process", .tags(.multiprocess))
    struct PresentersAcrossProcesses {
        /// Starts a presenter of `item` in a probe and waits until it is registered.
        static func presenter(_ item: URL, _ extra: [String] = [], into probes: inout [LaunchedProcess]) throws -> LaunchedProcess {
            let probe = try Probe.start(["ns-present", "--item", item.path] + extra)
            probes.append(probe)
            try #require(probe.waitForLine("ready"), "stderr: \(probe.standardError)")
            return probe
        }

        /// Runs `body` with a file holding "old" and a presenter of it in a probe
        /// (started with `extra` options), killed when `body` ends.
        static func withPresentedFile(_ extra: [String] = [], _ body: (URL, LaunchedProcess) throws -> Void) throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("note.txt")
                try Data("old".utf8).write(to: file)
                try withProbes { probes in
                    try body(file, try presenter(file, extra, into: &probes))
                }
            }
        }

        @Test("the document case: a merging write in this process first makes the presenter in another process save its unsaved edit (with a coordinated write of its own), so no update is lost; the reacquirer runs there after the access")
        func unsavedEditIsSavedFirst() throws {
            try Self.withPresentedFile(["--unsaved", "B's edit"]) { file, presenter throws in
                var error: NSError?
                var seenInAccessor: [String] = []
                NSFileCoordinator().coordinate(writingItemAt: file, options: .forMerging, error: &error) { url in
                    // Printed before it answered; read here once this process's pipe reader gets it
                    // (a request sent after the accessor would never come while it waits).
                    _ = presenter.waitForLine("relinquishToWriter", timeout: 20)
                    seenInAccessor = presenter.outputLines
                    let current = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
                    try? Data((current + " + A").utf8).write(to: url)
                }
                #expect(error == nil, "\(String(describing: error))")
                #expect(try String(contentsOf: file, encoding: .utf8) == "B's edit + A")
                #expect(seenInAccessor == ["ready", "save", "saved", "relinquishToWriter"], "stderr: \(presenter.standardError)")
                #expect(presenter.waitForLine("reacquire", timeout: 20), "\(presenter.outputLines)")
            }
        }

        @Test("a reader: the presenter saves, relinquishes to the reader, and reacquires after; .withoutChanges skips the save")
        func reader() throws {
            try Self.withPresentedFile(["--unsaved", "saved by B"]) { file, presenter throws in
                var error: NSError?
                var read: String?
                NSFileCoordinator().coordinate(readingItemAt: file, options: [], error: &error) { url in
                    read = try? String(contentsOf: url, encoding: .utf8)
                }
                #expect(error == nil)
                #expect(read == "saved by B")
                #expect(presenter.waitForLine("reacquireAfterRead", timeout: 20), "\(presenter.outputLines)")
                NSFileCoordinator().coordinate(readingItemAt: file, options: .withoutChanges, error: &error) { _ in }
                #expect(presenter.wait(forCount: 2, of: "reacquireAfterRead"))
                #expect(presenter.outputLines == ["ready", "save", "saved", "relinquishToReader", "reacquireAfterRead",
                                                  "relinquishToReader", "reacquireAfterRead"])
            }
        }

        @Test("a deletion: the item's presenter in another process accommodates it, a presenter of its directory accommodates its subitem's deletion, both before the accessor runs")
        func deletion() throws {
            try withTemporaryDirectory { dir in
                let folder = dir.appendingPathComponent("Inbox")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let file = folder.appendingPathComponent("item 1.json")
                try Data("{}".utf8).write(to: file)
                try withProbes { probes in
                    let itemPresenter = try Self.presenter(file, into: &probes)
                    let folderPresenter = try Self.presenter(folder, into: &probes)
                    var error: NSError?
                    var seen: ([String], [String]) = ([], [])
                    NSFileCoordinator().coordinate(writingItemAt: file, options: .forDeleting, error: &error) { url in
                        // (Waiting here: a request sent after the accessor would never come.)
                        _ = itemPresenter.waitForLine("accommodateDeletion", timeout: 20)
                        _ = folderPresenter.waitForLine("accommodateSubitemDeletion item 1.json", timeout: 20)
                        seen = (itemPresenter.outputLines, folderPresenter.outputLines)
                        try? FileManager.default.removeItem(at: url)
                    }
                    #expect(error == nil)
                    #expect(seen.0 == ["ready", "accommodateDeletion"])
                    #expect(seen.1 == ["ready", "accommodateSubitemDeletion item 1.json"])
                }
            }
        }

        @Test("a presenter that never answers makes the writer in another process fail after the timeout, with an error naming the presenter's process and item", .tags(.hostile))
        func silentPresenter() throws {
            try Self.withPresentedFile(["--silent", "yes"]) { file, presenter throws in
                let writer = try Probe.start(["ns-write", "--file", file.path, "--text", "A"], environment: ["APP_GROUP_PRESENTER_TIMEOUT": "1"])
                defer { writer.kill() }
                let end = writer.wait(timeout: 30)
                #expect(!end.succeeded, "the write went ahead: \(writer.outputLines)")
                let message = writer.standardError
                #expect(message.contains("process \(presenter.processIdentifier) (AppGroupProbe)"), "\(message)")
                #expect(message.contains("relinquishPresentedItem(toWriter:)") && message.contains(file.path), "\(message)")
                #expect(message.contains("Code=\(NSFileLockingError)"), "\(message)")
                #expect(try String(contentsOf: file, encoding: .utf8) == "old", "the accessor ran")
            }
        }

        @Test("a suspended presenter (stopped) is not waited for: the write goes ahead, and the presenter gets its messages once it resumes", .tags(.killed))
        func suspendedPresenter() throws {
            try Self.withPresentedFile { file, presenter throws in
                presenter.kill(SIGSTOP)
                defer { presenter.kill(SIGCONT) }
                let done = DispatchSemaphore(value: 0)
                let handoff = ErrorBox()
                Thread {
                    var error: NSError?
                    NSFileCoordinator().coordinate(writingItemAt: file, options: [], error: &error) { url in
                        try? Data("A".utf8).write(to: url)
                    }
                    handoff.error = error
                    done.signal()
                }.start()
                #expect(done.wait(timeout: .now() + 20) == .success, "the writer waited for a suspended presenter")
                #expect(handoff.error == nil)
                #expect(presenter.outputLines == ["ready"])
                presenter.kill(SIGCONT)
                #expect(presenter.waitForLine("reacquire", timeout: 20), "\(presenter.outputLines)")
                // (The change notice may come before or between them: it has a signal of its own.)
                let lines = presenter.outputLines.filter { $0 != "didChange" }
                #expect(lines == ["ready", "relinquishToWriter", "reacquire"], "\(presenter.outputLines)")
            }
        }

        @Test("a writer killed during its access never sends the reacquire: the presenter here gets its item back when its process is seen ended", .tags(.killed))
        func killedWriter() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("note.txt")
                let presenter = RecordingPresenter(file)
                try presenting(presenter) {
                    try withProbes { probes in
                        let writer = try Probe.start(["ns-write", "--file", file.path, "--text", "AB", "--release", dir.appendingPathComponent("never").path])
                        probes.append(writer)
                        try #require(writer.waitForLine("half"), "stderr: \(writer.standardError)")
                        #expect(presenter.events == ["relinquishToWriter"])
                        writer.kill()
                        #expect(presenter.wait(seconds: 20) { $0.contains("reacquire") }, "\(presenter.events)")
                    }
                }
            }
        }

        @Test("what crafted or stale files in presenters/ say is never waited for: a dead pid's and a reused pid's registries are removed, junk is ignored", .tags(.hostile))
        func craftedRegistries() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("note.txt")
                let tree = try #require(try FileCoordinator.changeSignalURL(for: file)).deletingLastPathComponent()
                let presenters = tree.appendingPathComponent("presenters")
                try FileManager.default.createDirectory(at: presenters, withIntermediateDirectories: true)
                let line = "appgroup-presenters 1\nprocess x\n1 \(file.path)\n"
                // No such process; pid 1 with a start time it does not have (a reused pid); junk.
                let stale = ["2147483646-1.registry", "1-3.registry"]
                for name in stale { try Data(line.utf8).write(to: presenters.appendingPathComponent(name)) }
                try FileManager.default.createDirectory(at: presenters.appendingPathComponent("1-3.inbox"), withIntermediateDirectories: true)
                try Data(line.utf8).write(to: presenters.appendingPathComponent("junk.registry"))
                // A live process (the parent) whose registry is not text: read, found empty, kept.
                let parent = "\(getppid())-\(try #require(ProcessState.startTime(of: getppid())))"
                try Data(repeating: 0xFF, count: 4096).write(to: presenters.appendingPathComponent(parent + ".registry"))
                var error: NSError?
                NSFileCoordinator().coordinate(writingItemAt: file, options: [], error: &error) { url in
                    try? Data("A".utf8).write(to: url)
                }
                #expect(error == nil)
                let left = try FileManager.default.contentsOfDirectory(atPath: presenters.path)
                #expect(!left.contains { $0.hasPrefix("2147483646-") || $0.hasPrefix("1-3.") }, "\(left)")
                #expect(left.contains("junk.registry") && left.contains(parent + ".registry"))
            }
        }

        @Test("two processes each writing the other's presented item at once both get their answers: none is given by a thread that waits")
        func processesAskingEachOther() throws {
            try withTemporaryDirectory { dir in
                let mine = dir.appendingPathComponent("mine.txt")
                let theirs = dir.appendingPathComponent("theirs.txt")
                let go = dir.appendingPathComponent("go")
                for file in [mine, theirs] { try Data("old".utf8).write(to: file) }
                let presenter = RecordingPresenter(mine)
                try presenting(presenter) {
                    try withProbes { probes in
                        let other = try Self.presenter(theirs, ["--write", mine.path, "--when", go.path], into: &probes)
                        try Data().write(to: go)
                        var error: NSError?
                        NSFileCoordinator().coordinate(writingItemAt: theirs, options: [], error: &error) { url in
                            try? Data("from here".utf8).write(to: url)
                        }
                        #expect(error == nil)
                        #expect(other.waitForLine("wrote other", timeout: 60), "\(other.outputLines) \(other.standardError)")
                        #expect(other.outputLines.contains("relinquishToWriter"), "\(other.outputLines)")
                        #expect(presenter.wait(seconds: 60) { $0.contains("relinquishToWriter") }, "\(presenter.events)")
                    }
                }
            }
        }

        @Test("a killed presenter is not waited for, and what its process registered is removed", .tags(.killed))
        func killedPresenter() throws {
            try Self.withPresentedFile { file, presenter throws in
                let presenters = try #require(try FileCoordinator.changeSignalURL(for: file)).deletingLastPathComponent()
                    .appendingPathComponent("presenters")
                let mine = { () -> [String] in
                    ((try? FileManager.default.contentsOfDirectory(atPath: presenters.path)) ?? [])
                        .filter { $0.hasPrefix("\(presenter.processIdentifier)-") }
                }
                #expect(mine().contains { $0.hasSuffix(".registry") })
                presenter.kill()
                presenter.wait(timeout: 10)
                var error: NSError?
                NSFileCoordinator().coordinate(writingItemAt: file, options: [], error: &error) { url in
                    try? Data("A".utf8).write(to: url)
                }
                #expect(error == nil)
                #expect(mine().isEmpty, "\(mine())")
            }
        }
    }
}

private final class ErrorBox: @unchecked Sendable {
    var error: NSError?
}

extension LaunchedProcess {
    /// Waits up to 20 s until `line` was printed `count` times.
    func wait(forCount count: Int, of line: String) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if outputLines.filter({ $0 == line }).count >= count { return true }
            usleep(5000)
        }
        return false
    }
}
