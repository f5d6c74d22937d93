import AppGroupTesting
import AppGroupContainer
import AppGroupFoundation
import AppGroupSystem
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// Runs `body` on a thread of its own (it blocks on locks), calling `done` after.
private func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return done
}

/// A flag set from one thread and read from another.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// An error slot written by one thread and read by another.
private final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: NSError?
    var error: NSError? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

@Suite("NSFileCoordinator in one process", .dedicatedThreads)
struct NSFileCoordinatorTests {
    @Test("NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt:options:error:byAccessor:), as iOS code writes it, then a coordinated read")
    func iosIdiom() throws {
        try withTemporaryDirectory { dir in
            let fileURL = dir.appendingPathComponent("clipping.json")
            let data = Data(#"{"title":"hello"}"#.utf8)
            var error: NSError?
            var wrote = false
            NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: fileURL, options: .forReplacing, error: &error) { url in
                wrote = (try? data.write(to: url, options: .atomic)) != nil
            }
            #expect(error == nil)
            #expect(wrote)
            var read: Data?
            NSFileCoordinator().coordinate(readingItemAt: fileURL, options: [], error: &error) { url in
                read = try? Data(contentsOf: url)
            }
            #expect(error == nil)
            #expect(read == data)
        }
    }

    @Test("an item that cannot be coordinated: the error comes back through the pointer in Cocoa's domain with Apple's code, and the accessor is not called")
    func errorsThroughThePointer() throws {
        try withTemporaryDirectory { dir in
            // A lock file of package 0.1.x beside the item: a process of that
            // version locks elsewhere, so coordinating would not exclude it.
            let shared = dir.appendingPathComponent("shared")
            try Data().write(to: dir.appendingPathComponent(".shared.lock"))
            let coordinator = NSFileCoordinator(filePresenter: nil)
            var called = false
            var error: NSError?
            coordinator.coordinate(writingItemAt: shared, options: [], error: &error) { _ in called = true }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSFileLockingError)
            #expect(error?.userInfo[NSFilePathErrorKey] as? String == shared.path)
            #expect(error?.localizedDescription.contains("0.1.x") == true, "\(String(describing: error))")
            error = nil
            coordinator.coordinate(readingItemAt: shared, options: [], error: &error) { _ in called = true }
            #expect(error?.code == NSFileLockingError)

            // Not a file URL; the root directory.
            error = nil
            coordinator.coordinate(writingItemAt: URL(string: "https://example.com/item")!, options: [], error: &error) { _ in called = true }
            #expect(error?.code == NSFileWriteInvalidFileNameError)
            error = nil
            coordinator.coordinate(readingItemAt: URL(fileURLWithPath: "/"), options: [], error: &error) { _ in called = true }
            #expect(error?.code == NSFileReadInvalidFileNameError)

            // The pair forms fail whole.
            let file = dir.appendingPathComponent("plain")
            try Data("x".utf8).write(to: file)
            error = nil
            coordinator.coordinate(readingItemAt: file, options: [], writingItemAt: shared, options: [], error: &error) { _, _ in called = true }
            #expect(error?.code == NSFileLockingError)
            #expect(!called)
            // A nil pointer is allowed: the error is dropped, the accessor still not called.
            coordinator.coordinate(writingItemAt: shared, options: [], error: nil) { _ in called = true }
            #expect(!called)
        }
    }

    @Test("an item in a missing directory, below a file, or past PATH_MAX is coordinated and the accessor's own access fails, as on Apple platforms")
    func itemsThatDoNotExistAreCoordinated() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("plain")
            try Data("x".utf8).write(to: file)
            let items = [dir.appendingPathComponent("no such directory/item"), file.appendingPathComponent("child"),
                         dir.appendingPathComponent(String(repeating: "d/", count: 2100) + "item")]
            for item in items {
                var error: NSError?
                var writeError: Error?
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: item, options: [], error: &error) { url in
                    do { try Data("x".utf8).write(to: url) } catch { writeError = error }
                }
                #expect(error == nil, "\(item.path.prefix(80)): \(String(describing: error))")
                #expect(writeError != nil, "the accessor's write of \(item.path.prefix(80)) should fail")
            }
            #expect(names(in: dir) == ["plain"], "nothing of the coordinator's stands beside the items")
        }
    }

    /// A write tells the presenters of the item and of every directory above it; each
    /// directory's place in the coordination tree was once searched for from scratch,
    /// so an item 2,100 directories deep cost 2.2 million lstat calls (seconds).
    @Test("a coordinated write of an item thousands of directories deep costs system calls in proportion to its depth, not its square", .tags(.faults))
    func deepItemCostsLinearly() throws {
        try withTemporaryDirectory { dir in
            let depth = 2100
            let item = dir.appendingPathComponent(String(repeating: "d/", count: depth) + "item")
            let (calls, _) = FaultInjection.trace {
                var error: NSError?
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: item, options: [], error: &error) { _ in }
            }
            #expect(calls.count < 20 * depth, "\(calls.count) system calls for one coordinated write \(depth) directories deep")
        }
    }

    @Test("a name over 255 bytes coordinates and the limit is met by the accessor's own write, as on Apple platforms")
    func longName() throws {
        try withTemporaryDirectory { dir in
            let item = dir.appendingPathComponent(String(repeating: "n", count: 300))
            var error: NSError?
            var writeError: Error?
            NSFileCoordinator().coordinate(writingItemAt: item, options: [], error: &error) { url in
                do { try Data("x".utf8).write(to: url) } catch { writeError = error }
            }
            #expect(error == nil)
            #expect(writeError != nil, "the file system refuses a 300-byte name")
            #expect(names(in: dir).isEmpty)
            let lockName = try FileCoordinator.lockFileURL(for: item).lastPathComponent
            #expect(lockName.utf8.count == 37, "a hash and .lock: \(lockName)")
        }
    }

    @Test("cancel() ends a coordination waiting for a lock with NSUserCancelledError, without calling its accessor; later ones fail too")
    func cancelWhileWaiting() async throws {
        try await blockingInTemporaryDirectory { dir in
            let item = dir.appendingPathComponent("item")
            let holding = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            // Another holder of the write lock: the package's own coordinator, on a thread of its own.
            let holderDone = onThread {
                try? FileCoordinator().coordinate(writingItemAt: item) { _ in
                    holding.signal()
                    release.wait()
                }
            }
            defer {
                release.signal()
                holderDone.wait()
            }
            holding.wait()
            // Apple's NSFileCoordinator is not Sendable either; cancel() is documented as
            // callable from any thread, which is what this test does.
            final class Shared: @unchecked Sendable { let coordinator = NSFileCoordinator(filePresenter: nil) }
            let shared = Shared()
            let coordinator = shared.coordinator
            let called = Flag()
            let box = ErrorBox()
            let started = Flag()
            let waiterDone = onThread {
                var error: NSError?
                started.set()
                shared.coordinator.coordinate(writingItemAt: item, options: [], error: &error) { _ in called.set() }
                box.error = error
            }
            while !started.isSet { usleep(1000) }
            // It must really be waiting: the lock is held.
            #expect(waiterDone.wait(timeout: .now() + 0.3) == .timedOut, "the coordination did not wait for a held lock")
            coordinator.cancel()
            #expect(waiterDone.wait(timeout: .now() + 10) == .success, "cancel() did not end the wait")
            #expect(box.error?.domain == NSCocoaErrorDomain)
            #expect(box.error?.code == NSUserCancelledError)
            #expect(!called.isSet)

            var error: NSError?
            var laterCalled = false
            coordinator.coordinate(readingItemAt: dir.appendingPathComponent("other"), options: [], error: &error) { _ in laterCalled = true }
            #expect(error?.code == NSUserCancelledError)
            #expect(!laterCalled)
        }
    }

    @Test("coordinate(with:queue:byAccessor:) with several intents: the accessor runs on the queue holding every lock; nested coordinations run at once")
    func intents() async throws {
        try await withTemporaryDirectory { dir in
            let a = dir.appendingPathComponent("a")
            let b = dir.appendingPathComponent("b")
            let c = dir.appendingPathComponent("c d%20")
            try Data("a".utf8).write(to: a)
            let queue = OperationQueue()
            let intents = [
                NSFileAccessIntent.readingIntent(with: a, options: .withoutChanges),
                NSFileAccessIntent.writingIntent(with: b, options: .forReplacing),
                NSFileAccessIntent.writingIntent(with: c),
                NSFileAccessIntent.writingIntent(with: b, options: .forMerging), // the same item twice
            ]
            #expect(intents.map(\.url) == [a, b, c, b])
            struct Seen: Sendable {
                var error: String?
                var onQueue = false
                var othersLockedOut = false
                var readerAdmitted = false
                var nestedRan = false
            }
            let seen: Seen = try await withCheckedThrowingContinuation { continuation in
                NSFileCoordinator(filePresenter: nil).coordinate(with: intents, queue: queue) { error in
                    var seen = Seen(error: error.map { "\($0)" })
                    seen.onQueue = OperationQueue.current === queue
                    // From another thread: b, c and a cannot be written, a can be read.
                    let probe = FileCoordinator(timeout: 0.2)
                    let readA = Flag(), wroteOther = Flag()
                    onThread {
                        for url in [a, b, c] where (try? probe.coordinate(writingItemAt: url) { _ in }) != nil { wroteOther.set() }
                        if (try? probe.coordinate(readingItemAt: a) { _ in }) != nil { readA.set() }
                    }.wait()
                    seen.othersLockedOut = !wroteOther.isSet
                    seen.readerAdmitted = readA.isSet
                    var nestedError: NSError?
                    NSFileCoordinator().coordinate(writingItemAt: c, options: [], error: &nestedError) { url in
                        seen.nestedRan = (try? Data("c".utf8).write(to: url)) != nil
                    }
                    continuation.resume(returning: seen)
                }
            }
            #expect(seen.error == nil)
            #expect(seen.onQueue)
            #expect(seen.othersLockedOut)
            #expect(seen.readerAdmitted)
            #expect(seen.nestedRan)
            // After the accessor, everything is free again.
            try FileCoordinator(timeout: 5).coordinate(writingItemAt: b) { _ in }
            try FileCoordinator(timeout: 5).coordinate(writingItemAt: c) { _ in }
        }
    }

    @Test("coordinate(with:queue:byAccessor:) passes an error to the accessor, on the queue, for an item that cannot be coordinated")
    func intentsError() async throws {
        try await withTemporaryDirectory { dir in
            let queue = OperationQueue()
            let good = NSFileAccessIntent.readingIntent(with: dir.appendingPathComponent("fine"))
            try Data().write(to: dir.appendingPathComponent(".x.lock")) // a lock file of package 0.1.x
            let bad = NSFileAccessIntent.writingIntent(with: dir.appendingPathComponent("x"))
            let (code, domain, onQueue): (Int?, String?, Bool) = await withCheckedContinuation { continuation in
                NSFileCoordinator(filePresenter: nil).coordinate(with: [good, bad], queue: queue) { error in
                    let error = error.map { $0 as NSError }
                    continuation.resume(returning: (error?.code, error?.domain, OperationQueue.current === queue))
                }
            }
            #expect(code == NSFileLockingError)
            #expect(domain == NSCocoaErrorDomain)
            #expect(onQueue)
        }
    }

    @Test("nesting: a read inside a write of the same item runs at once; a write inside a read fails with NSFileLockingError instead of waiting for itself")
    func nesting() throws {
        try withTemporaryDirectory { dir in
            let item = dir.appendingPathComponent("item")
            var outer: NSError?, inner: NSError?
            var innerRan = false
            NSFileCoordinator().coordinate(writingItemAt: item, options: [], error: &outer) { _ in
                NSFileCoordinator().coordinate(readingItemAt: item, options: [], error: &inner) { _ in innerRan = true }
            }
            #expect(outer == nil && inner == nil && innerRan)
            innerRan = false
            NSFileCoordinator().coordinate(readingItemAt: item, options: [], error: &outer) { _ in
                NSFileCoordinator().coordinate(writingItemAt: item, options: [], error: &inner) { _ in innerRan = true }
            }
            #expect(outer == nil)
            #expect(inner?.domain == NSCocoaErrorDomain)
            #expect(inner?.code == NSFileLockingError)
            #expect(!innerRan)
        }
    }

    @Test("filePresenters lists a presenter added (once, however often) until it is removed")
    func registry() throws {
        try withTemporaryDirectory { dir in
            let presenter = RecordingPresenter(dir.appendingPathComponent("doc"))
            NSFileCoordinator.addFilePresenter(presenter)
            NSFileCoordinator.addFilePresenter(presenter)
            #expect(NSFileCoordinator.filePresenters.filter { $0 === presenter }.count == 1)
            NSFileCoordinator.removeFilePresenter(presenter)
            #expect(!NSFileCoordinator.filePresenters.contains { $0 === presenter })
            NSFileCoordinator.removeFilePresenter(presenter) // twice: no effect
        }
    }
}
