import AppGroupContainer
import AppGroupFoundation
import AppGroupTesting
import Foundation
import Testing
import TestSupport
import DeviceTestSupport

extension MultiProcess {
    @Suite("NSFileCoordinator across processes", .tags(.multiprocess))
    struct NSFileCoordinatorAcrossProcesses {
        @Test("a coordinated read waits for a writer in another process: it never sees the half-written file, and runs after the writer releases")
        func readerWaitsForWriter() throws {
            try withTemporaryDirectory { dir in
                let file = dir.appendingPathComponent("note.txt")
                let release = dir.appendingPathComponent("release")
                let text = String(repeating: "0123456789", count: 100)
                try withProbes { probes in
                    let writer = try Probe.start(["ns-write", "--file", file.path, "--text", text, "--release", release.path])
                    probes.append(writer)
                    try #require(writer.waitForLine("half"), "stderr: \(writer.standardError)")
                    final class Seen: @unchecked Sendable {
                        var content: String?
                        var writerDone = false
                    }
                    let seen = Seen()
                    let readerDone = DispatchSemaphore(value: 0)
                    Thread {
                        var error: NSError?
                        NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: file, options: [], error: &error) { url in
                            // Looked at first thing: the writer cannot have finished before the
                            // release file existed, so a reader let in early finds neither.
                            seen.content = try? String(contentsOf: url, encoding: .utf8)
                            seen.writerDone = FileManager.default.fileExists(atPath: release.path)
                        }
                        readerDone.signal()
                    }.start()
                    // While the writer holds the lock, the reader waits.
                    #expect(readerDone.wait(timeout: .now() + 0.3) == .timedOut, "the reader did not wait for the writer")
                    #expect(FileManager.default.createFile(atPath: release.path, contents: Data()))
                    #expect(readerDone.wait(timeout: .now() + 20) == .success, "the reader never got the file")
                    #expect(seen.content == text, "the reader saw \(seen.content?.count ?? -1) of \(text.count) characters")
                    #expect(seen.writerDone, "the reader's accessor ran before the writer had released")
                    #expect(writer.wait(timeout: 10).succeeded, "stderr: \(writer.standardError)")
                }
            }
        }

        @Test("a presenter here is asked to relinquish before a coordinated write by another process, and hears of it after (presentedItemDidChange); a directory presenter of a write below it")
        func presenterHearsOtherProcess() throws {
            try withTemporaryDirectory { dir in
                let folder = dir.appendingPathComponent("Inbox")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let file = folder.appendingPathComponent("item 1.json")
                let itemPresenter = RecordingPresenter(file)
                let folderPresenter = RecordingPresenter(folder)
                try presenting(itemPresenter) {
                    try presenting(folderPresenter) {
                        try Probe.run(["ns-write", "--file", file.path, "--text", "{}"])
                        #expect(itemPresenter.wait(seconds: 20) { $0.contains("didChange") }, "\(itemPresenter.events)")
                        #expect(folderPresenter.wait(seconds: 20) { $0.contains("subitemDidChange " + file.path) }, "\(folderPresenter.events)")
                        #expect(itemPresenter.eventsOffQueue.isEmpty && folderPresenter.eventsOffQueue.isEmpty)
                        // Another process's write asks this process's presenters first (PresentersAcrossProcesses).
                        let events = itemPresenter.events
                        #expect(events.firstIndex(of: "relinquishToWriter").map { $0 < events.firstIndex(of: "didChange")! } == true, "\(events)")
                    }
                }
            }
        }

        @Test("a move coordinated and reported in another process reaches the presenter as presentedItemDidMove(to:)")
        func presenterHearsMove() throws {
            try withTemporaryDirectory { dir in
                let old = dir.appendingPathComponent("draft.txt")
                let new = dir.appendingPathComponent("final.txt")
                try Data("text".utf8).write(to: old)
                let presenter = RecordingPresenter(old)
                try presenting(presenter) {
                    try Probe.run(["ns-move", "--from", old.path, "--to", new.path])
                    #expect(presenter.wait(seconds: 20) { $0.contains("didMove " + new.path) }, "\(presenter.events)")
                }
            }
        }

        @Test("the App Groups guide's clipping.json lines with NSFileCoordinator, unchanged but for an import: written by the share extension, read by the app")
        func guideClipping() throws {
            try SimulatedDevice.with { device in
                let notes = try NotesExample()
                let probe = try SimulatedDevice.requireBuiltExecutable(named: "AppGroupProbe")
                let text = #"{"url":"https://example.com/article"}"#
                let saved = try device.spawn(probe, ["seed-save", "--text", text], as: notes.shareExtension)
                #expect(saved.succeeded, "stderr: \(saved.standardError)")
                let loaded = try device.spawn(probe, ["seed-load"], as: notes.app)
                #expect(loaded.succeeded, "stderr: \(loaded.standardError)")
                #expect(loaded.outputLines.contains("clipping: " + text), "\(loaded.outputLines)")
                let container = try device.containerLocation(for: NotesExample.groupIdentifier)
                #expect(try Data(contentsOf: container.appendingPathComponent("clipping.json")) == Data(text.utf8))
                // The target that never joined the group gets no container and writes nothing.
                let orphan = try device.spawn(probe, ["seed-save", "--text", "lost"], as: notes.shareExtensionWithoutGroup)
                #expect(orphan.succeeded)
                #expect(try Data(contentsOf: container.appendingPathComponent("clipping.json")) == Data(text.utf8))
            }
        }
    }
}
