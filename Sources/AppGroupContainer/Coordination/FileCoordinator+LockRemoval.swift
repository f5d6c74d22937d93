import Foundation
import AppGroupSystem

extension FileCoordinator {
    /// Removes the lock file of `item`, for items whose lock only their owner and
    /// its clean-up open (a share inbox's drain sessions; ShareInbox's
    /// TheShareInbox article). Call it holding that lock, once the item is gone: a
    /// process that opened the file before it was unlinked finds, after locking,
    /// that the path no longer names its inode and starts again (the protocol's
    /// step 5). False when it was gone already.
    @discardableResult
    package func removeLockFile(for item: URL) throws(AppGroupError) -> Bool {
        let path = try lockFile(for: item).path
        return try fromSystem(SystemCalls.unlink(path))
    }

    /// After a write with ``WritingOptions/forDeleting``, still holding the
    /// item's exclusive lock: when the item is gone, its lock file goes too
    /// (<doc:LockingProtocol>, section 1, the exceptions), so that a folder whose
    /// items come and go (a queue) leaves no lock file per item it ever held in
    /// the coordination tree. Best effort: a lock file that stays costs nothing.
    package static func removeLockFile(ofDeleted item: Item) {
        guard !item.slot.beside, SystemCalls.isAbsent(item.path) else { return }
        if (try? SystemCalls.unlink(item.lockPath)) == true { item.slot.dropIdle() }
    }
}
