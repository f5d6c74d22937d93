import AppGroupContainer
import Foundation

/// Every error a ``ShareInbox`` throws. What the container below raised
/// (`AppGroupError.notEntitled(group:bundleIdentifier:heldGroups:)`, a failed
/// system call, `AppGroupError.notDurable(path:operation:errno:)`...) comes
/// through as ``container(_:)``, carrying that `AppGroupError`:
///
/// ```swift
/// catch ShareInboxError.container(.notDurable) { /* enqueued, but not yet durable: do not enqueue again */ }
/// ```
public enum ShareInboxError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// An item given to a ``ShareInbox`` (or one found in it) is unusable: `field`
    /// names the part (`title`, `attachments[0].name`, `inbox name`...).
    case invalidInboxItem(field: String, problem: String)
    /// A path given to the inbox is refused before it is opened: an attachment's
    /// path that is relative, has `..`, is a symbolic link, is outside the
    /// directories the process may read or in the container of a group it is not
    /// entitled to; an inbox directory with a NUL byte.
    case unsafePath(path: String, problem: String)
    /// A ``ShareInbox`` has given out its last sequence number (`last`, as its
    /// sequence file or an item on disk says): no item can be added. Numbers are
    /// never reused, so this is the end of that inbox's numbering.
    case inboxSequenceExhausted(sequenceFile: String, last: UInt64)
    /// The container below the inbox failed: the group is not entitled, a system
    /// call failed, a symbolic link was planted on the way... (`AppGroupError` says
    /// which, where and what to do).
    case container(AppGroupError)

    public var description: String {
        switch self {
        case let .invalidInboxItem(field, problem):
            return "share inbox item refused, \(field): \(problem)"
        case let .unsafePath(path, problem):
            return "refused path \(AppGroupError.quote(path)): \(problem)"
        case let .inboxSequenceExhausted(file, last):
            return "the share inbox has given out its last sequence number (\(last), as \(file) says): nothing was added. "
                + "No inbox gives out that many numbers: the file was set by hand or by another program (numbers found in the inbox "
                + "far above the counter are never believed, so no item raised it there). To number items again: drain the inbox "
                + "(so that no item is pending), then remove \(file); numbers start again after the highest item left. "
                + "An app that remembers delivered sequence numbers must forget them then."
        case let .container(error):
            return error.description
        }
    }

    public var errorDescription: String? { description }
}
