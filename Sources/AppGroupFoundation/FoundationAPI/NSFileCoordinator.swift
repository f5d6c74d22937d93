#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// Coordinates reading and writing of files between objects of this process and
/// other processes, as Apple's `NSFileCoordinator`, on the package's locking
/// protocol (<doc:FileCoordination>, <doc:NSFileCoordinatorOnLinux>).
///
/// Readers share, writers exclude, across threads and processes: an accessor runs
/// while the item's lock is held. Presenters registered with
/// ``addFilePresenter(_:)`` are asked to save and relinquish before another
/// coordinator of any process of the device reads or writes their item (a
/// suspended or ended process is not waited for; a presenter that does not answer
/// within `APP_GROUP_PRESENTER_TIMEOUT` seconds, 30 by default, fails the access
/// with `NSFileLockingError`), and are told of coordinated writes made by any process. A coordinator made with a presenter
/// does not send that presenter anything about its own accesses.
///
/// Errors come back through the `error:` pointer, in `NSCocoaErrorDomain` with
/// Apple's codes, and the accessor is then not called: `NSUserCancelledError`
/// after ``cancel()``, a presenter's own error when its save fails, and for an item
/// that cannot be coordinated (its directory missing or not writable, a name over
/// the limits, a symbolic link where the lock file belongs) the read or write
/// error code for the cause (`NSFileNoSuchFileError`, `NSFileWriteNoPermissionError`,
/// `NSFileWriteInvalidFileNameError`, ...), with the package's error as
/// `NSUnderlyingErrorKey`. Unlike Apple's, the directory of an item must exist:
/// its lock file lives there.
open class NSFileCoordinator: NSObject {
    let filePresenter: NSFilePresenter?
    let cancelled = Locked(false)

    /// A string naming this coordinator's purpose (Apple uses it to let related
    /// coordinators nest). Kept for compatibility; it changes nothing here.
    open var purposeIdentifier: String = UUID().uuidString

    /// A coordinator whose accesses are not reported to `filePresenterOrNil` (the
    /// presenter on whose behalf it works), or to nobody in particular when nil.
    public init(filePresenter filePresenterOrNil: NSFilePresenter?) {
        filePresenter = filePresenterOrNil
        super.init()
    }

    /// A coordinator working on behalf of no presenter.
    public override convenience init() {
        self.init(filePresenter: nil)
    }

    // MARK: Presenters

    /// Registers `filePresenter` for the messages about its item. Balance it with
    /// ``removeFilePresenter(_:)``: the presenter is retained until then.
    open class func addFilePresenter(_ filePresenter: NSFilePresenter) {
        PresenterRegistry.shared.add(filePresenter)
    }

    /// Unregisters `filePresenter`; no new message is sent to it afterwards.
    open class func removeFilePresenter(_ filePresenter: NSFilePresenter) {
        PresenterRegistry.shared.remove(filePresenter)
    }

    /// The presenters registered in this process.
    open class var filePresenters: [NSFilePresenter] {
        PresenterRegistry.shared.presenters
    }

    // MARK: Cancelling

    /// Stops this coordinator's waits: a coordination still waiting for a lock or a
    /// presenter ends with `NSUserCancelledError` and does not call its accessor;
    /// an accessor already running finishes. Later coordinations by this
    /// coordinator fail the same way. Callable from any thread; returns at once.
    open func cancel() {
        cancelled.withLock { $0 = true }
    }

    var isCancelled: Bool { cancelled.withLock { $0 } }

    // MARK: Coordinating synchronously

    /// Runs `reader` while no other coordinator writes the item at `url`.
    open func coordinate(readingItemAt url: URL, options: NSFileCoordinator.ReadingOptions = [],
                         error outError: NSErrorPointer, byAccessor reader: (URL) -> Void) {
        run([Access(url: url, reading: options)], outError) { reader($0[0]) }
    }

    /// Runs `writer` while no other coordinator reads or writes the item at `url`.
    open func coordinate(writingItemAt url: URL, options: NSFileCoordinator.WritingOptions = [],
                         error outError: NSErrorPointer, byAccessor writer: (URL) -> Void) {
        run([Access(url: url, writing: options)], outError) { writer($0[0]) }
    }

    /// Reads one item and writes another under one coordination.
    open func coordinate(readingItemAt readingURL: URL, options readingOptions: NSFileCoordinator.ReadingOptions = [],
                         writingItemAt writingURL: URL, options writingOptions: NSFileCoordinator.WritingOptions = [],
                         error outError: NSErrorPointer, byAccessor readerWriter: (URL, URL) -> Void) {
        run([Access(url: readingURL, reading: readingOptions), Access(url: writingURL, writing: writingOptions)], outError) {
            readerWriter($0[0], $0[1])
        }
    }

    /// Writes two items under one coordination, as for a move (`.forMoving` on the
    /// source, `.forReplacing` on the destination).
    open func coordinate(writingItemAt url1: URL, options options1: NSFileCoordinator.WritingOptions = [],
                         writingItemAt url2: URL, options options2: NSFileCoordinator.WritingOptions = [],
                         error outError: NSErrorPointer, byAccessor writer: (URL, URL) -> Void) {
        run([Access(url: url1, writing: options1), Access(url: url2, writing: options2)], outError) {
            writer($0[0], $0[1])
        }
    }

    /// Apple's batching hint: calls `batchAccessor` at once with a completion
    /// handler that does nothing (each coordination inside it locks on its own).
    open func prepare(forReadingItemsAt readingURLs: [URL], options readingOptions: NSFileCoordinator.ReadingOptions = [],
                      writingItemsAt writingURLs: [URL], options writingOptions: NSFileCoordinator.WritingOptions = [],
                      error outError: NSErrorPointer, byAccessor batchAccessor: (@escaping @Sendable () -> Void) -> Void) {
        if isCancelled {
            outError?.pointee = CoordinationErrors.cancelled(readingURLs.first ?? writingURLs.first)
            return
        }
        batchAccessor({})
    }

    // MARK: Coordinating asynchronously

    /// Waits, off the caller's thread, for every item of `intents`, then runs
    /// `accessor` on `queue` while holding them all; on failure `accessor` gets the
    /// error instead (and must not touch the files).
    open func coordinate(with intents: [NSFileAccessIntent], queue: OperationQueue,
                         byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void) {
        // The coordinator and its intents are used by the waiting thread alone until
        // the queue's operation, which runs after it, takes them over.
        let handoff = Handoff(value: (self, intents.map(\.access)))
        let thread = Thread {
            let (coordinator, accesses) = handoff.value
            do {
                let prepared = try coordinator.prepare(accesses)
                do {
                    let locks = try coordinator.lock(prepared)
                    let held = Handoff(value: (coordinator, prepared, locks))
                    queue.addOperation {
                        let (coordinator, prepared, locks) = held.value
                        locks.hold {
                            accessor(nil)
                            coordinator.signal(prepared)
                            coordinator.removeLockFilesOfDeleted(accesses, prepared)
                        }
                        locks.release()
                        PresenterRequests.reacquire(prepared.reacquirers)
                    }
                } catch {
                    PresenterRequests.reacquire(prepared.reacquirers)
                    throw error
                }
            } catch {
                let failure = coordinator.cocoaError(error, accesses)
                queue.addOperation { accessor(failure.value) }
            }
        }
        thread.name = "NSFileCoordinator wait"
        thread.start()
    }

    // MARK: Moves

    /// Apple announces a move to presenters before it happens (used for file
    /// packages and iCloud); here presenters learn of moves from
    /// ``item(at:didMoveTo:)``, so this does nothing.
    open func item(at oldURL: URL, willMoveTo newURL: URL) {}

    /// Reports that the item at `oldURL` is now at `newURL` (call it in the
    /// accessor of a `.forMoving` write): its presenters, in this process and
    /// others, get ``NSFilePresenter/presentedItemDidMove(to:)``, presenters of a
    /// directory above it ``NSFilePresenter/presentedSubitem(at:didMoveTo:)``.
    open func item(at oldURL: URL, didMoveTo newURL: URL) {
        guard oldURL.isFileURL, newURL.isFileURL else { return }
        ChangeSignal.post(.move, itemPath: PresenterRegistry.standardPath(oldURL),
                          newPath: PresenterRegistry.standardPath(newURL),
                          excluding: PresenterRegistry.identity(of: filePresenter))
    }

    /// Ubiquity attributes are iCloud's; nothing to report here.
    open func item(at url: URL, didChangeUbiquityAttributes attributes: Set<URLResourceKey>) {}
}
#endif
