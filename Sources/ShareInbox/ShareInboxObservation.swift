import AppGroupContainer

/// An observation made by ``ShareInbox/observe(_:)``: the calls go on while it
/// lives and stop with ``cancel()`` (or when it is released).
public final class ShareInboxObservation: Sendable {
    private let watcher: DirectoryWatcher

    init(_ watcher: DirectoryWatcher) { self.watcher = watcher }

    /// Stops the calls; a call under way finishes. Safe to call more than once.
    public func cancel() { watcher.cancel() }

    deinit { watcher.cancel() }
}
