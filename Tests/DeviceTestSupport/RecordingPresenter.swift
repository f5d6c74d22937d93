import AppGroupContainer
import AppGroupFoundation
import Foundation

/// A file presenter, written as iOS code writes one, that records every message
/// it gets (in order) and which queue it got it on.
package final class RecordingPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    package let presentedItemURL: URL?
    package let presentedItemOperationQueue: OperationQueue
    /// When set, savePresentedItemChanges answers with this error.
    package let saveError: Error?
    private let lock = NSLock()
    private var log: [String] = []
    private var offQueue: [String] = []

    package init(_ url: URL, saveError: Error? = nil) {
        presentedItemURL = url
        self.saveError = saveError
        presentedItemOperationQueue = OperationQueue()
        presentedItemOperationQueue.maxConcurrentOperationCount = 1
        super.init()
    }

    /// Adds `event` to the log (tests add their own events, such as "write").
    package func record(_ event: String) {
        let onQueue = OperationQueue.current === presentedItemOperationQueue
        lock.lock()
        log.append(event)
        if !onQueue && !event.hasPrefix("test:") { offQueue.append(event) }
        lock.unlock()
    }

    package var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    /// Messages that arrived on another queue than ``presentedItemOperationQueue``.
    package var eventsOffQueue: [String] {
        lock.lock()
        defer { lock.unlock() }
        return offQueue
    }

    /// Waits up to `seconds` for `predicate` to hold of the log.
    package func wait(seconds: Double = 10, until predicate: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if predicate(events) { return true }
            usleep(2000)
        }
        return predicate(events)
    }

    package func presentedItemDidChange() { record("didChange") }
    package func presentedSubitemDidChange(at url: URL) { record("subitemDidChange " + url.path) }
    package func presentedItemDidMove(to newURL: URL) { record("didMove " + newURL.path) }
    package func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) { record("subitemDidMove " + oldURL.path + " -> " + newURL.path) }

    package func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record("save")
        completionHandler(saveError)
    }

    package func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        record("relinquishToWriter")
        writer { self.record("reacquire") }
    }

    package func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        record("relinquishToReader")
        reader { self.record("reacquireAfterRead") }
    }

    package func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record("accommodateDeletion")
        completionHandler(nil)
    }
}

/// Registers `presenter` for the duration of `body`.
package func presenting<T>(_ presenter: NSFilePresenter, _ body: () throws -> T) rethrows -> T {
    NSFileCoordinator.addFilePresenter(presenter)
    defer { NSFileCoordinator.removeFilePresenter(presenter) }
    return try body()
}
