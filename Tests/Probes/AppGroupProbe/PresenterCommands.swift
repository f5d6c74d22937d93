import AppGroupContainer
import AppGroupFoundation
import Foundation
import ProbeSupport

/// `ns-present`: a file presenter in this process, written as iOS code writes one,
/// that another process's coordinated accesses ask first (listed at the top of
/// main.swift).
enum PresenterCommands {
    /// `ns-present --item PATH [--unsaved TEXT] [--silent yes]`: registers a
    /// presenter of PATH that prints each message it gets as a line. With
    /// `--unsaved`, its save writes TEXT into PATH with a coordinated write of its
    /// own (the document case; it must not deadlock with the access that asked).
    /// With `--silent yes` it never calls a completion handler. With `--write
    /// OTHER --when FILE`, once FILE exists it makes a coordinated write of OTHER
    /// (asking OTHER's presenters meanwhile) and prints "wrote other" or "write
    /// failed: <error>". Prints "ready", then runs until killed.
    static func present() -> Never {
        let presenter = PrintingPresenter(item: URL(fileURLWithPath: option("item")), unsaved: optionalOption("unsaved"),
                                          silent: optionalOption("silent") == "yes")
        NSFileCoordinator.addFilePresenter(presenter)
        say("ready")
        if let other = optionalOption("write"), let when = optionalOption("when") {
            while !FileManager.default.fileExists(atPath: when) { usleep(200) }
            var error: NSError?
            NSFileCoordinator(filePresenter: presenter).coordinate(writingItemAt: URL(fileURLWithPath: other), options: [], error: &error) { url in
                try? Data("from the probe".utf8).write(to: url)
            }
            say(error.map { "write failed: \($0)" } ?? "wrote other")
        }
        while true { sleep(60) }
    }
}

/// Prints every message on stdout, on its own queue, as it gets it; follows a
/// move it is told of, as app code does (its next save goes there).
private final class PrintingPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    /// Follows the item as app code does: a move changes where it saves.
    var presentedItemURL: URL? { lock.withLock { url } }
    private var url: URL? // guarded by lock
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private let lock = NSLock()
    private var unsaved: String? // guarded by lock: saved once
    private let silent: Bool

    init(item: URL, unsaved: String?, silent: Bool) {
        url = item
        self.unsaved = unsaved
        self.silent = silent
    }

    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("save")
        if silent { return }
        let text = lock.withLock { () -> String? in
            defer { unsaved = nil }
            return unsaved
        }
        guard let text, let url = presentedItemURL else {
            completionHandler(nil)
            return
        }
        var error: NSError?
        NSFileCoordinator(filePresenter: self).coordinate(writingItemAt: url, options: [], error: &error) { url in
            do { try Data(text.utf8).write(to: url) } catch { say("save failed: \(error)") }
        }
        say(error == nil ? "saved" : "save coordination failed: \(error!)")
        completionHandler(error)
    }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquishToWriter")
        if silent { return }
        writer { say("reacquire") }
    }

    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquishToReader")
        if silent { return }
        reader { say("reacquireAfterRead") }
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("accommodateDeletion")
        if silent { return }
        completionHandler(nil)
    }

    func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("accommodateSubitemDeletion " + url.lastPathComponent)
        if silent { return }
        completionHandler(nil)
    }

    func presentedItemDidChange() { say("didChange") }

    func presentedItemDidMove(to newURL: URL) {
        lock.withLock { url = newURL }
        say("didMove " + newURL.path)
    }

    func presentedSubitemDidChange(at url: URL) { say("subitemDidChange " + url.path) }

    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) { say("subitemDidMove " + oldURL.path + " -> " + newURL.path) }
}
