import CAppGroupSys
import Foundation

/// A whole-file advisory lock on a lock file, owned by one open file description.
///
/// The protocol every participant follows (README, "Locking protocol"):
/// - the lock file of an item at `<dir>/<name>` is `<dir>/.<name>.lock`, created
///   0600 with O_NOFOLLOW and never deleted;
/// - readers take a shared (F_RDLCK) lock, writers an exclusive (F_WRLCK) lock, on
///   the whole file (l_start 0, l_len 0);
/// - several items are locked in ascending byte order of their lock-file paths.
///
/// Linux uses open-file-description locks (F_OFD_SETLKW), so two threads or two
/// locks in one process exclude each other exactly as two processes do. They also
/// conflict with classic fcntl/lockf locks, so a Python peer using `fcntl.lockf`
/// takes part. The kernel drops a dead process's locks, SIGKILL included.
final class FileLock: Sendable {
    enum Mode: Int32, Sendable {
        case shared = 1
        case exclusive = 2

        var name: String { self == .shared ? "read" : "write" }
    }

    let slot: LockSlot
    let mode: Mode
    private let fd: Int32

    var lockPath: String { slot.lockPath }

    private init(slot: LockSlot, mode: Mode, fd: Int32) {
        self.slot = slot
        self.mode = mode
        self.fd = fd
    }

    /// The lock file that guards the item at the standardized absolute `itemPath`:
    /// `<dir>/.<name>.lock`.
    static func lockPath(forStandardizedPath itemPath: String) throws -> String {
        guard let slash = itemPath.lastIndex(of: "/") else {
            throw AppGroupError.unsafePath(path: itemPath, problem: "not an absolute path; coordinate absolute file URLs")
        }
        let name = itemPath[itemPath.index(after: slash)...]
        guard !name.isEmpty, name != ".", name != ".." else {
            throw AppGroupError.unsafePath(path: itemPath, problem: "cannot coordinate the root directory or a '.'/'..' path; name a file or directory")
        }
        return String(itemPath[..<slash]) + "/." + name + ".lock"
    }

    /// Takes the lock, waiting up to `timeout` seconds (forever when nil).
    /// - Throws: ``AppGroupError/coordinationTimedOut(path:lockFile:seconds:)`` after the
    ///   timeout; file-system errors when the lock file cannot be opened.
    static func acquire(_ slot: LockSlot, mode: Mode, timeout: TimeInterval?, itemPath: String) throws -> FileLock {
        let deadline = timeout.map { DispatchTime.now().uptimeNanoseconds + UInt64(max($0, 0) * 1e9) }
        while true {
            let fd = try slot.take()
            do {
                try wait(fd, mode: mode, deadline: deadline, lockPath: slot.lockPath, itemPath: itemPath, timeout: timeout ?? 0)
            } catch {
                Sys.close(fd)
                throw error
            }
            // A lock on a file that was unlinked meanwhile (its directory removed and
            // made again, say) protects nothing: check the inode still has a name.
            if try isLinked(fd, slot.lockPath) { return FileLock(slot: slot, mode: mode, fd: fd) }
            _ = Sys.lock(fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: slot.lockPath)
            Sys.close(fd)
        }
    }

    /// Tries once, without waiting; nil when another holder conflicts.
    static func tryAcquire(_ slot: LockSlot, mode: Mode) throws -> FileLock? {
        while true {
            let fd = try slot.take()
            let result = Sys.lock(fd, mode.rawValue, wait: false, path: slot.lockPath)
            if result == EINTR { slot.giveBack(fd); continue }
            if result == EAGAIN || result == EACCES || result == EWOULDBLOCK {
                slot.giveBack(fd)
                return nil
            }
            if result != 0 {
                Sys.close(fd)
                throw AppGroupError.systemCall(operation: "fcntl(F_OFD_SETLK)", path: slot.lockPath, errno: result)
            }
            if try isLinked(fd, slot.lockPath) { return FileLock(slot: slot, mode: mode, fd: fd) }
            _ = Sys.lock(fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: slot.lockPath)
            Sys.close(fd)
        }
    }

    /// Releases the lock; the descriptor goes back to its slot for the next holder.
    func release() {
        _ = Sys.lock(fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: slot.lockPath)
        slot.giveBack(fd)
    }

    private static func wait(_ fd: Int32, mode: Mode, deadline: UInt64?, lockPath: String, itemPath: String, timeout: TimeInterval) throws {
        guard let deadline else {
            while true {
                let result = Sys.lock(fd, mode.rawValue, wait: true, path: lockPath)
                if result == 0 { return }
                if result == EINTR { continue }
                throw AppGroupError.systemCall(operation: "fcntl(F_OFD_SETLKW)", path: lockPath, errno: result)
            }
        }
        // A blocking wait cannot be given a deadline, so poll with a growing pause
        // (50 us doubling to 5 ms): a freed lock is noticed within 5 ms.
        var pause: UInt32 = 50
        while true {
            let result = Sys.lock(fd, mode.rawValue, wait: false, path: lockPath)
            if result == 0 { return }
            if result == EINTR { continue }
            guard result == EAGAIN || result == EACCES || result == EWOULDBLOCK else {
                throw AppGroupError.systemCall(operation: "fcntl(F_OFD_SETLK)", path: lockPath, errno: result)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline {
                throw AppGroupError.coordinationTimedOut(path: itemPath, lockFile: lockPath, seconds: timeout)
            }
            usleep(UInt32(min(UInt64(pause), (deadline - now) / 1000 + 1)))
            pause = min(pause * 2, 5000)
        }
    }

    /// True while the locked inode is still linked. Lock files are never deleted or
    /// replaced by the protocol, so an unlinked one means its directory went away:
    /// fstat's link count (no path walk) says so at a quarter of an lstat's cost.
    private static func isLinked(_ fd: Int32, _ lockPath: String) throws -> Bool {
        try Sys.fstat(fd, path: lockPath).st_nlink > 0
    }
}
