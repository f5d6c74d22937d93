import AppGroupContainer
import AppGroupFoundation
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

@Suite("NSFilePresenter in one process")
struct NSFilePresenterTests {
    @Test("a write by another coordinator: the presenter saves (.forMerging), relinquishes, the write runs, then the reacquirer and the change notice, all on the presenter's queue")
    func saveRelinquishReacquireOrder() async throws {
        try await blockingInTemporaryDirectory { dir in
            let doc = dir.appendingPathComponent("doc.txt")
            try Data("v1".utf8).write(to: doc)
            let presenter = RecordingPresenter(doc)
            presenting(presenter) {
                var error: NSError?
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: doc, options: .forMerging, error: &error) { url in
                    presenter.record("test:write")
                    try? Data("v2".utf8).write(to: url)
                }
                #expect(error == nil)
                #expect(presenter.wait { $0.contains("reacquire") && $0.contains("didChange") }, "\(presenter.events)")
                let events = presenter.events
                // The change notice comes from the watcher, so it may come before or after the reacquirer.
                #expect(events.filter { $0 != "didChange" } == ["save", "relinquishToWriter", "test:write", "reacquire"], "\(events)")
                #expect(events.filter { $0 == "didChange" }.count == 1, "\(events)")
                #expect(presenter.eventsOffQueue.isEmpty, "messages off the presenter's queue: \(presenter.eventsOffQueue)")
            }
        }
    }

    @Test("a plain write relinquishes without saving; a read saves and relinquishes to the reader, unless .withoutChanges; a deletion is accommodated")
    func messagesByKind() async throws {
        try await blockingInTemporaryDirectory { dir in
            let doc = dir.appendingPathComponent("doc")
            try Data("x".utf8).write(to: doc)
            let presenter = RecordingPresenter(doc)
            presenting(presenter) {
                let coordinator = NSFileCoordinator(filePresenter: nil)
                var error: NSError?
                coordinator.coordinate(readingItemAt: doc, options: [], error: &error) { _ in presenter.record("test:read") }
                coordinator.coordinate(readingItemAt: doc, options: .withoutChanges, error: &error) { _ in presenter.record("test:read2") }
                coordinator.coordinate(writingItemAt: doc, options: [], error: &error) { _ in presenter.record("test:write") }
                coordinator.coordinate(writingItemAt: doc, options: .forDeleting, error: &error) { url in
                    presenter.record("test:delete")
                    try? FileManager.default.removeItem(at: url)
                }
                #expect(error == nil)
                let expected = ["save", "relinquishToReader", "test:read", "reacquireAfterRead",
                                "relinquishToReader", "test:read2", "reacquireAfterRead",
                                "relinquishToWriter", "test:write", "reacquire",
                                "accommodateDeletion", "test:delete"]
                #expect(presenter.wait { $0.filter { $0 != "didChange" }.count >= expected.count })
                // Reacquirers run asynchronously on the presenter's queue: compare per access.
                let events = presenter.events.filter { $0 != "didChange" }
                #expect(Set(events) == Set(expected), "\(events)")
                #expect(events.firstIndex(of: "test:read")! < events.firstIndex(of: "test:write")!)
                #expect(events.filter { $0 == "save" }.count == 1, "only the read without .withoutChanges saves: \(events)")
            }
        }
    }

    @Test("a coordinator made with a presenter sends that presenter nothing about its own accesses")
    func ownWritesAreNotReported() async throws {
        try await blockingInTemporaryDirectory { dir in
            let doc = dir.appendingPathComponent("doc")
            let presenter = RecordingPresenter(doc)
            presenting(presenter) {
                var error: NSError?
                let own = NSFileCoordinator(filePresenter: presenter)
                for i in 0..<3 {
                    own.coordinate(writingItemAt: doc, options: .forMerging, error: &error) { url in
                        try? Data("own \(i)".utf8).write(to: url)
                    }
                }
                #expect(error == nil)
                #expect(presenter.events.isEmpty, "\(presenter.events)")
                // A marker write by another coordinator: its notice comes after any the
                // own writes might have caused, so once it is here, the count is final.
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: doc, options: [], error: &error) { url in
                    try? Data("other".utf8).write(to: url)
                }
                // The reacquirer and the change notice reach the presenter's queue in
                // either order: wait for both before judging what else came.
                #expect(presenter.wait { $0.contains("didChange") && $0.contains("reacquire") })
                #expect(presenter.events == ["relinquishToWriter", "reacquire", "didChange"] ||
                        presenter.events == ["relinquishToWriter", "didChange", "reacquire"], "\(presenter.events)")
            }
        }
    }

    @Test("a presenter whose save fails stops the access: its error comes back through the pointer and the accessor is not called")
    func saveErrorStopsTheAccess() async throws {
        try await blockingInTemporaryDirectory { dir in
            let doc = dir.appendingPathComponent("doc")
            let failure = NSError(domain: NSCocoaErrorDomain, code: NSFileWriteOutOfSpaceError, userInfo: [NSLocalizedDescriptionKey: "disk full"])
            let presenter = RecordingPresenter(doc, saveError: failure)
            try presenting(presenter) {
                var error: NSError?
                var called = false
                NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: doc, options: [], error: &error) { _ in called = true }
                #expect(!called)
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(error?.code == NSFileWriteOutOfSpaceError)
                // The lock was never taken, so nothing is left held.
                try FileCoordinator(timeout: 5).coordinate(writingItemAt: doc) { _ in }
            }
        }
    }

    @Test("a presenter of a directory hears of a coordinated write anywhere below it, with the item's URL, odd names included")
    func directoryPresenter() async throws {
        try await blockingInTemporaryDirectory { dir in
            let folder = dir.appendingPathComponent("Shared Items")
            let deeper = folder.appendingPathComponent("in%20side")
            try FileManager.default.createDirectory(at: deeper, withIntermediateDirectories: true)
            let presenter = RecordingPresenter(folder)
            presenting(presenter) {
                let item = deeper.appendingPathComponent("a b\nc é.json")
                var error: NSError?
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: item, options: [], error: &error) { url in
                    try? Data("{}".utf8).write(to: url)
                }
                #expect(error == nil)
                #expect(presenter.wait { $0.contains("subitemDidChange " + item.path) }, "\(presenter.events)")
                #expect(!presenter.events.contains("didChange"), "a subitem's change is not the directory's own")
            }
        }
    }

    @Test("a crafted change-signal file (junk, or larger than the limit) neither crashes nor silences the notices", .tags(.hostile))
    func craftedSignalFile() async throws {
        try await blockingInTemporaryDirectory { dir in
            let doc = dir.appendingPathComponent("doc")
            let signal = dir.appendingPathComponent(".doc.changes")
            try Data("junk line\n1 2 3 change relative/path\n\u{0}\u{1}\n".utf8).write(to: signal)
            let presenter = RecordingPresenter(doc)
            try presenting(presenter) {
                var error: NSError?
                NSFileCoordinator().coordinate(writingItemAt: doc, options: [], error: &error) { _ in }
                #expect(error == nil)
                #expect(presenter.wait { $0.contains("didChange") }, "\(presenter.events)")
                // Larger than any signal file the package writes: unreadable, so every
                // event on it counts as a change (reported, never dropped).
                try Data(repeating: UInt8(ascii: "x"), count: (1 << 20) + 10).write(to: signal)
                let before = presenter.events.filter { $0 == "didChange" }.count
                NSFileCoordinator().coordinate(writingItemAt: doc, options: [], error: &error) { _ in }
                #expect(error == nil)
                #expect(presenter.wait { $0.filter { $0 == "didChange" }.count > before }, "\(presenter.events)")
            }
        }
    }
}
