import AppGroupContainer
import Foundation

extension ShareInbox {
    /// Calls `handler` (on a private thread, as the identity of the code that called
    /// this: its `IdentityScope`, or none) whenever items are published to or
    /// leave the inbox (`Items/`, or a record appended to a journal log), in any process. The signal carries nothing: drain to learn
    /// what arrived. Signals may coalesce (a stream of appends is signalled at most once a
    /// millisecond, its first append at once), and a drain's own claims trigger one too,
    /// so a handler that drains is always safe. Keep the returned observation
    /// alive; ``ShareInboxObservation/cancel()`` stops it.
    public func observe(_ handler: @escaping @Sendable () -> Void) throws -> ShareInboxObservation {
        // An item being written (a hidden temporary) is no news; its rename to a
        // number is, and so is a journal log growing. A drain writing a cursor or
        // taking the consumer lock is not (it would wake a draining observer
        // after each of its own drains, without end).
        // Only the logs' writes are watched in Journal/: the drain's own cursor
        // writes, one per delivery, would wake the watcher's thread each time.
        ShareInboxObservation(try DirectoryWatcher(directory: itemsDirectory, appendsIn: journalDirectory, appending: { JournalCursor.isLogName($0) }) { names in
            if names.contains(where: { !InboxNames.isTemporary($0) && !JournalCursor.isCursorName($0) && $0 != JournalReader.consumerLockName }) {
                handler()
            }
        })
    }

    /// The signals of ``observe(_:)`` as an async sequence; cancelling the
    /// consuming task stops the watcher.
    public func changes() throws -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let watcher = try observe { continuation.yield(()) }
        continuation.onTermination = { _ in watcher.cancel() }
        return stream
    }
}
