#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// What a coordinated access asks of the presenters of its items before it takes
/// its locks, and gives back after releasing them: those of this process here,
/// those of other processes of the device through ``RemotePresenterAsk``.
///
/// Asked before the locks, because a presenter commonly saves with a coordinated
/// write of its own, which would otherwise wait for the very access that waits
/// for it. Each request runs on the presenter's queue (inline when the access is
/// made on that queue already, which would otherwise wait for itself) and the
/// access waits for its answer, as Apple's does. The presenters of an item are
/// those of the item itself and of every directory above it.
struct PresenterRequests {
    /// What gives a presenter its item back once the access is over: its
    /// reacquirer run on its queue, here or in its process.
    struct Reacquirer {
        let giveBack: () -> Void
    }

    let excluded: NSFilePresenter?
    let isCancelled: () -> Bool
    let remote: RemotePresenterAsk

    init(excluded: NSFilePresenter?, isCancelled: @escaping () -> Bool) {
        (self.excluded, self.isCancelled) = (excluded, isCancelled)
        remote = RemotePresenterAsk(isCancelled: isCancelled)
    }

    /// Reading `path`: save first (unless `.withoutChanges`), then relinquish to the reader.
    func beforeReading(_ path: String, options: NSFileCoordinator.ReadingOptions, into reacquirers: inout [Reacquirer]) throws {
        for (presenter, _) in PresenterRegistry.shared.presenters(of: path, excluding: excluded) {
            if !options.contains(.withoutChanges) { try save(presenter, path) }
            if let block = try ask(presenter, "relinquishPresentedItem(toReader:)", path, { presenter, done in
                presenter.relinquishPresentedItem(toReader: { reacquirer in done(.success(reacquirer)) })
            }) {
                reacquirers.append(Self.reacquirer(presenter, block))
            }
        }
        try remote.beforeReading(path, options: options, into: &reacquirers)
    }

    /// Writing `path`: a deletion is accommodated (by a directory's presenter, as
    /// its subitem's); a merge saves first; every other write relinquishes the
    /// item to the writer.
    func beforeWriting(_ path: String, options: NSFileCoordinator.WritingOptions, into reacquirers: inout [Reacquirer]) throws {
        for (presenter, isDirectoryAbove) in PresenterRegistry.shared.presenters(of: path, excluding: excluded) {
            if options.contains(.forDeleting) {
                let item = URL(fileURLWithPath: path)
                try ask(presenter, isDirectoryAbove ? "accommodatePresentedSubitemDeletion" : "accommodatePresentedItemDeletion", path) { presenter, done in
                    let handler: @Sendable ((any Error)?) -> Void = { error in done(error.map { .failure($0) } ?? .success(())) }
                    if isDirectoryAbove {
                        presenter.accommodatePresentedSubitemDeletion(at: item, completionHandler: handler)
                    } else {
                        presenter.accommodatePresentedItemDeletion(completionHandler: handler)
                    }
                }
                continue
            }
            if options.contains(.forMerging) { try save(presenter, path) }
            if let block = try ask(presenter, "relinquishPresentedItem(toWriter:)", path, { presenter, done in
                presenter.relinquishPresentedItem(toWriter: { reacquirer in done(.success(reacquirer)) })
            }) {
                reacquirers.append(Self.reacquirer(presenter, block))
            }
        }
        try remote.beforeWriting(path, options: options, into: &reacquirers)
    }

    /// Gives every presenter its item back, once the access is over.
    static func reacquire(_ reacquirers: [Reacquirer]) {
        for reacquirer in reacquirers { reacquirer.giveBack() }
    }

    private static func reacquirer(_ presenter: NSFilePresenter, _ block: @escaping @Sendable () -> Void) -> Reacquirer {
        Reacquirer { PresenterRegistry.send(to: presenter) { _ in block() } }
    }

    private func save(_ presenter: NSFilePresenter, _ path: String) throws {
        try ask(presenter, "savePresentedItemChanges", path) { presenter, done in
            presenter.savePresentedItemChanges { error in done(error.map { .failure($0) } ?? .success(())) }
        }
    }

    /// Sends `request` to `presenter` on its queue and waits for its answer,
    /// checking for cancellation while it waits.
    /// - Throws: the presenter's error, or the cancellation.
    @discardableResult
    private func ask<T>(_ presenter: NSFilePresenter, _ message: String, _ path: String,
                        _ request: @escaping (NSFilePresenter, @escaping @Sendable (Result<T, Error>) -> Void) -> Void) throws -> T {
        let span = Tracing.begin(.presenterMessage)
        var outcome = "answered"
        defer { span?.end(message, [("item", path), ("presenter", "\(type(of: presenter))"), ("outcome", outcome)]) }
        do { return try askUntraced(presenter, request) } catch { outcome = "\(error)"; throw error }
    }

    private func askUntraced<T>(_ presenter: NSFilePresenter,
                                _ request: @escaping (NSFilePresenter, @escaping @Sendable (Result<T, Error>) -> Void) -> Void) throws -> T {
        let answer = Locked<Result<T, Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let done: @Sendable (Result<T, Error>) -> Void = { result in
            // The first answer counts; a presenter calling its handler twice changes nothing.
            let first = answer.withLock { current -> Bool in
                if current != nil { return false }
                current = result
                return true
            }
            if first { answered.signal() }
        }
        let queue = presenter.presentedItemOperationQueue
        // The presenter answers as the identity that registered it, as in its own process.
        let identity = PresenterRegistry.shared.identity(for: presenter)
        if OperationQueue.current === queue {
            identity.run { request(presenter, done) }
        } else {
            // The request runs on the presenter's queue; this thread only waits.
            let handoff = Handoff(value: (presenter, request))
            queue.addOperation { identity.run { handoff.value.1(handoff.value.0, done) } }
        }
        while answered.wait(timeout: .now() + 0.05) == .timedOut {
            if isCancelled() { throw CancellationError() }
        }
        guard let result = answer.withLock({ $0 }) else { throw CancellationError() } // never: signalled after set
        return try result.get()
    }
}
#endif
