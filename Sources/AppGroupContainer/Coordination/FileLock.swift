import CAppGroupSys
import Foundation
import AppGroupSystem

/// A whole-file advisory lock on a lock file, owned by one open file description.
///
/// The protocol every participant follows (<doc:LockingProtocol>, version 2):
/// - the lock file of an item lives in a tree of the package's own, never beside
///   the item (``CoordinationTree``): `<root>/.coordination/<hash>.lock` for an
///   item below a device root, the user's private tree otherwise; created 0600
///   with O_NOFOLLOW;
/// - readers take a shared (F_RDLCK) lock, writers an exclusive (F_WRLCK) lock, on
///   the whole file (l_start 0, l_len 0);
/// - several items are locked in ascending byte order of their lock-file paths;
/// - after locking, the lock-file path must still name the locked inode (fstat of
///   the descriptor against lstat of the path: device and inode); if not, the lock
///   is released, the descriptor closed, and the lock taken again on what the path
///   names now. A lock file removed (or a tree replaced) while a writer waited
///   would otherwise leave that writer locking a file nobody else locks;
/// - then, the item's tree must still be the one the search finds
///   (``LockLocation/isCurrent()``): a nearer tree made, or this one removed, since
///   the location was found moves the lock there and it is taken again.
///
/// Linux uses open-file-description locks (F_OFD_SETLKW), so two threads or two
/// locks in one process exclude each other exactly as two processes do. They also
/// conflict with classic fcntl/lockf locks, so a Python peer using `fcntl.lockf`
/// takes part. The kernel drops a dead process's locks, SIGKILL included.
///
/// A value, not an object: each coordination takes one, and allocating and freeing
/// it would weigh on an uncontended coordination. Release it once.
package struct FileLock: Sendable {
    package enum Mode: Int32, Sendable {
        case shared = 1
        case exclusive = 2

        var name: String { self == .shared ? "read" : "write" }
    }

    let slot: LockSlot
    let mode: Mode
    private let handle: LockSlot.Handle
    /// When the lock was taken, for the trace's "held" event (nil: tracing was off).
    private let held: Tracing.Span?
    /// The item's lock file moved while this lock was being taken: a caller that
    /// takes several locks in the protocol's order must take them again, in the
    /// order of where they are now.
    let relocated: Bool

    var lockPath: String { handle.location.lockPath }

    private init(slot: LockSlot, mode: Mode, handle: LockSlot.Handle, relocated: Bool) {
        self.slot = slot
        self.mode = mode
        self.handle = handle
        self.relocated = relocated
        self.held = Tracing.begin(.lockHeld)
    }

    /// Where the lock file of the item at the standardized absolute `itemPath` is:
    /// in its ``CoordinationTree``, named by the hash of its key.
    static func placement(forStandardizedPath itemPath: String, lockFiles: FileCoordinator.LockFiles) throws(AppGroupError) -> LockSlot.Placement {
        guard let slash = itemPath.lastIndex(of: "/") else {
            throw .unsafePath(path: itemPath, problem: "not an absolute path; coordinate absolute file URLs")
        }
        let name = itemPath[itemPath.index(after: slash)...]
        guard !name.isEmpty, name != ".", name != ".." else {
            throw .unsafePath(path: itemPath, problem: "cannot coordinate the root directory or a '.'/'..' path; name a file or directory")
        }
        if case .besideItems(let root) = lockFiles {
            let directory = String(itemPath[..<slash])
            let tree = CoordinationTree(path: directory.isEmpty ? "/" : directory, root: nil)
            return LockSlot.Placement(tree: tree, key: String(name), name: FileNames.lockName(for: String(name)), beside: true, root: root)
        }
        let (tree, key) = try CoordinationTree.locate(itemPath)
        return LockSlot.Placement(tree: tree, key: key, name: CoordinationTree.fileName(forKey: key, suffix: ".lock"), beside: false, root: nil)
    }

    /// The lock file the previous protocol (version 1, package 0.1.x) used for
    /// the item at `itemPath`: `<dir>/.<name>.lock`, beside it.
    static func versionOneLockPath(forStandardizedPath itemPath: String) -> String? {
        guard let slash = itemPath.lastIndex(of: "/") else { return nil }
        let name = String(itemPath[itemPath.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        return String(itemPath[..<slash]) + "/" + FileNames.lockName(for: name)
    }

    /// Takes the lock, waiting up to `timeout` seconds (forever when nil).
    /// - Parameter asking: whether this attempt is an exploring scheduler's step; a
    ///   wait cut in slices asks once, at its first, so that the steps of a schedule
    ///   do not depend on how many slices a wait took.
    /// - Throws: ``AppGroupError/coordinationTimedOut(path:lockFile:seconds:)`` after the
    ///   timeout; file-system errors when the lock file cannot be opened.
    static func acquire(_ slot: LockSlot, mode: Mode, timeout: TimeInterval?, itemPath: String,
                        asking: Bool = true) throws(AppGroupError) -> FileLock {
        if asking { Exploration.step(mode == .shared ? "read lock" : "write lock", itemPath) }
        let deadline = timeout.map { DispatchTime.now().uptimeNanoseconds + UInt64(max($0, 0) * 1e9) }
        // The wait ends before the hold begins (so the two nest on the timeline).
        let waiting = Tracing.begin(.lockWait)
        var waited = false
        var relocated = false
        defer { if !waited { waiting?.end(itemPath, [("mode", mode.name), ("lock file", slot.lockPath), ("outcome", "failed")]) } }
        while true {
            let handle = try slot.take()
            do throws(AppGroupError) {
                try wait(handle.fd, mode: mode, deadline: deadline, lockPath: handle.location.lockPath, itemPath: itemPath, timeout: timeout ?? 0)
            } catch {
                SystemCalls.close(handle.fd)
                throw error
            }
            if try stillNamed(handle, slot), try stillPlaced(handle, slot, relocated: &relocated) {
                waited = true
                waiting?.end(itemPath, [("mode", mode.name), ("lock file", handle.location.lockPath)])
                return FileLock(slot: slot, mode: mode, handle: handle, relocated: relocated)
            }
        }
    }

    /// Tries once, without waiting; nil when another holder conflicts.
    static func tryAcquire(_ slot: LockSlot, mode: Mode) throws(AppGroupError) -> FileLock? {
        Exploration.step(mode == .shared ? "read lock" : "write lock", slot.lockPath)
        var relocated = false
        while true {
            let handle = try slot.take()
            if let code = SystemCalls.lock(handle.fd, mode.rawValue, wait: false, path: handle.location.lockPath) {
                if code == .EINTR { slot.giveBack(handle); continue }
                if isBusy(code) {
                    slot.giveBack(handle)
                    return nil
                }
                SystemCalls.close(handle.fd)
                throw .systemCall(operation: "fcntl(F_OFD_SETLK)", path: handle.location.lockPath, errno: code)
            }
            if try stillNamed(handle, slot), try stillPlaced(handle, slot, relocated: &relocated) {
                return FileLock(slot: slot, mode: mode, handle: handle, relocated: relocated)
            }
        }
    }

    /// Releases the lock; the descriptor goes back to its slot for the next holder.
    func release() {
        held?.end(handle.location.lockPath, [("mode", mode.name)])
        _ = SystemCalls.lock(handle.fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: handle.location.lockPath)
        slot.giveBack(handle)
    }

    private static func wait(_ fd: Int32, mode: Mode, deadline: UInt64?, lockPath: String, itemPath: String, timeout: TimeInterval) throws(AppGroupError) {
        guard let deadline else {
            while true {
                guard let code = SystemCalls.lock(fd, mode.rawValue, wait: true, path: lockPath) else { return }
                if code == .EINTR { continue }
                throw .systemCall(operation: "fcntl(F_OFD_SETLKW)", path: lockPath, errno: code)
            }
        }
        // A blocking wait cannot be given a deadline, so poll with a growing pause
        // (50 us doubling to 5 ms): a freed lock is noticed within 5 ms.
        var pause: UInt32 = 50
        while true {
            guard let code = SystemCalls.lock(fd, mode.rawValue, wait: false, path: lockPath) else { return }
            if code == .EINTR { continue }
            guard isBusy(code) else {
                throw .systemCall(operation: "fcntl(F_OFD_SETLK)", path: lockPath, errno: code)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline {
                throw .coordinationTimedOut(path: itemPath, lockFile: lockPath, seconds: timeout)
            }
            usleep(UInt32(min(UInt64(pause), (deadline - now) / 1000 + 1)))
            pause = min(pause * 2, 5000)
        }
    }

    /// What a lock attempt that must not wait answers when another holder conflicts.
    private static func isBusy(_ code: Errno) -> Bool { code == .EAGAIN || code == .EACCES || code == .EWOULDBLOCK }

    /// Step 5 of the protocol, on a descriptor just locked: true when the lock-file
    /// path still names the locked inode (device and inode, recorded when the
    /// descriptor was opened, against one lstat of the path). Otherwise the file
    /// was unlinked or replaced, or a directory above it replaced (by a copy, say):
    /// that lock excludes no one who opens the path now, so it is released, the
    /// descriptor closed (not given back: it is stale for every later holder) and
    /// the slot's idle descriptors dropped, since they may be stale too.
    private static func stillNamed(_ handle: LockSlot.Handle, _ slot: LockSlot) throws(AppGroupError) -> Bool {
        let named: (device: UInt64, inode: UInt64)?
        do {
            named = try SystemCalls.lstatIdentity(handle.location.lockPath)
        } catch {
            discard(handle, slot)
            throw AppGroupError(error)
        }
        if let named, named.device == handle.device, named.inode == handle.inode { return true }
        discard(handle, slot)
        return false
    }

    private static func discard(_ handle: LockSlot.Handle, _ slot: LockSlot) {
        _ = SystemCalls.lock(handle.fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: handle.location.lockPath)
        SystemCalls.close(handle.fd)
        slot.dropIdle()
    }

    /// After step 5, on a lock that still names its file: true when the item's
    /// tree is still the one the protocol's search finds (<doc:LockingProtocol>,
    /// section 5). Otherwise a nearer tree appeared, or this one went, since the
    /// location was found: processes started since lock elsewhere, so this lock
    /// excludes none of them. It is released and the slot moves to where the
    /// search finds the lock file now; the caller locks again there.
    private static func stillPlaced(_ handle: LockSlot.Handle, _ slot: LockSlot, relocated: inout Bool) throws(AppGroupError) -> Bool {
        if handle.location.isCurrent() { return true }
        _ = SystemCalls.lock(handle.fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: handle.location.lockPath)
        SystemCalls.close(handle.fd)
        relocated = true
        try slot.relocate(from: handle.location)
        return false
    }
}
