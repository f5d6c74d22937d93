import Foundation

/// Removes delivered items (their `<n>.delivered` tombstones) beside the drain's
/// own thread, a few at a time.
///
/// Why: removing a file frees its blocks, and where the file system discards freed
/// blocks synchronously (ext4 mounted with `discard` and no journal, as on this
/// project's CI machines) each unlink waits about a millisecond for the device,
/// longer than delivering the item. The waits overlap when several removals are in
/// flight (four at once ran 9 times faster than one after another, measured), and
/// the drain delivers the next items meanwhile. Four, not more: the discards share
/// the device with the fsyncs of concurrent enqueues, and four keep a drain ahead
/// of four enqueuing processes.
///
/// What does not change: an item is removed only after its handler returned and its
/// claim was renamed to the tombstone (the record that it was delivered, made on the
/// drain's thread, in order); removals are waited for before each batch fsync of the
/// session directory and before the drain returns, so a drain that returned has
/// removed everything it delivered, and a process killed mid-removal leaves
/// tombstones the next drain finishes, as before.
final class InboxRemovals: @unchecked Sendable {
    /// Removals in flight at once.
    static let concurrency = 4

    private let queue = DispatchQueue(label: "ShareInbox.removals", attributes: .concurrent)
    private let group = DispatchGroup()
    private let slots = DispatchSemaphore(value: InboxRemovals.concurrency)

    init() { _ = Self.dispatchStarted }

    /// Runs one block on a dispatch worker thread, once per process, before any
    /// removal: the first worker libdispatch starts opens its event descriptors
    /// (epoll, eventfd) and traps when it cannot, so a handler that used up every
    /// descriptor (EMFILE) would crash the process at the first removal after it.
    private static let dispatchStarted: Void = {
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { started.signal() }
        started.wait()
    }()

    /// Starts removing `tombstone` (see ``ShareInbox/discardDelivered(_:number:session:)``,
    /// which never throws: what cannot be removed is quarantined with a warning).
    /// Blocks while ``concurrency`` removals are in flight.
    func remove(_ tombstone: String, number: UInt64, session: String, of inbox: ShareInbox) {
        slots.wait()
        group.enter()
        queue.async { [slots, group] in
            inbox.discardDelivered(tombstone, number: number, session: session)
            slots.signal()
            group.leave()
        }
    }

    /// Returns once every removal started has ended.
    func wait() { group.wait() }
}
