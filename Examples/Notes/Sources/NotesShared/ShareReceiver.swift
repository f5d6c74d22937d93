import Foundation
#if !canImport(Darwin)
import AppGroupFoundation // NSFileCoordinator and NSFilePresenter on Linux
#endif

/// The running app's side: presents the share queue file and receives every
/// share as soon as the extension writes it (the extension's coordinated write
/// reaches this presenter, in another process, as `presentedItemDidChange()`).
public final class ShareReceiver: NSObject, NSFilePresenter, @unchecked Sendable {
    // @unchecked: every stored property is immutable and thread-safe to read.
    /// The share queue's file.
    public let presentedItemURL: URL?
    /// A serial queue: one receive at a time.
    public let presentedItemOperationQueue: OperationQueue
    private let library: NotesLibrary
    private let onReceive: @Sendable (Result<[SharedItem], any Error>) -> Void

    /// - Parameter onReceive: called on ``presentedItemOperationQueue`` with the
    ///   notes added by each receive (possibly none), or why it failed.
    public init(onReceive: @escaping @Sendable (Result<[SharedItem], any Error>) -> Void) throws {
        library = try NotesLibrary()
        presentedItemURL = try ShareQueue().fileURL
        presentedItemOperationQueue = OperationQueue()
        presentedItemOperationQueue.maxConcurrentOperationCount = 1
        self.onReceive = onReceive
        super.init()
    }

    /// Starts presenting, then receives what was shared before: a share made
    /// after `start` is noticed, one made before is in the queue.
    public func start() {
        NSFileCoordinator.addFilePresenter(self)
        presentedItemOperationQueue.addOperation { [self] in receive() }
        presentedItemOperationQueue.waitUntilAllOperationsAreFinished()
    }

    /// Stops presenting.
    public func stop() {
        NSFileCoordinator.removeFilePresenter(self)
    }

    /// Another process (or coordinator) wrote the queue: receive what it added.
    public func presentedItemDidChange() {
        receive()
    }

    private func receive() {
        // With `presenter: self`, the coordinator does not ask this presenter
        // (whose queue is running this very call) to step aside.
        onReceive(Result { try library.receiveShares(presenter: self) })
    }
}
