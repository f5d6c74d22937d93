import Foundation

extension FileCoordinator {
    /// Removes the lock file of `item`: the one exception to the locking protocol's
    /// "never delete a lock file", for items whose lock only their owner and its
    /// clean-up open (a share inbox's drain sessions; ShareInbox's TheShareInbox article).
    /// Call it holding that lock, once the item is gone: a process that opened the
    /// file before it was unlinked finds, after locking, that the path no longer
    /// names its inode and starts again (the protocol's step 5). False when it was
    /// gone already.
    @discardableResult
    package static func removeLockFile(for item: URL) throws -> Bool {
        try Sys.unlink(try lockFileURL(for: item).path)
    }
}
