import Foundation

/// One lock file and the idle descriptors open on it.
///
/// Descriptors are kept open so that taking a lock costs one fcntl and one fstat
/// rather than an open, an fstat and a close. A descriptor serves one holder at a
/// time, so every holder still has an open file description of its own, and two
/// holders in one process exclude each other as two processes do.
final class LockSlot: @unchecked Sendable {
    let lockPath: String
    private let mutex = NSLock()
    private var idle: [Int32] = []
    private static let maxIdle = 4

    init(lockPath: String) { self.lockPath = lockPath }

    deinit { for fd in idle { Sys.close(fd) } }

    /// An idle descriptor, or a new one (O_RDWR|O_CREAT|O_NOFOLLOW, 0600).
    func take() throws -> Int32 {
        mutex.lock()
        let reused = idle.popLast()
        mutex.unlock()
        if let reused { return reused }
        let fd: Int32
        do {
            fd = try Sys.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW)
        } catch AppGroupError.systemCall(_, _, let code) where code == ELOOP {
            throw AppGroupError.unsafePath(path: lockPath, problem: "a symbolic link stands where the lock file belongs; it was not followed, remove it")
        }
        do {
            let st = try Sys.fstat(fd, path: lockPath)
            guard Sys.isRegular(st) else {
                throw AppGroupError.notARegularFile(path: lockPath, kind: Sys.fileKind(st.st_mode))
            }
            // O_CREAT applies the umask; a lock file every peer opens must stay 0600.
            if st.st_mode & 0o777 != Sys.fileMode { try Sys.fchmod(fd, Sys.fileMode, path: lockPath) }
            return fd
        } catch {
            Sys.close(fd)
            throw error
        }
    }

    /// Returns an unlocked descriptor for the next holder.
    func giveBack(_ fd: Int32) {
        mutex.lock()
        let keep = idle.count < Self.maxIdle
        if keep { idle.append(fd) }
        mutex.unlock()
        if !keep { Sys.close(fd) }
    }
}

/// The process's lock slots, by item path, so that a coordination of an item seen
/// before costs one dictionary lookup: no path parsing, no lock-path building.
enum LockSlots {
    private static let table = Locked<[String: LockSlot]>([:])
    // Bounded: past this many items the table starts afresh (slots in use live on
    // with their holders; their descriptors close when the last holder is done).
    private static let capacity = 1024

    static func cached(_ itemPath: String) -> LockSlot? {
        table.withLock { $0[itemPath] }
    }

    static func slot(forStandardizedPath itemPath: String) throws -> LockSlot {
        if let slot = cached(itemPath) { return slot }
        let slot = LockSlot(lockPath: try FileLock.lockPath(forStandardizedPath: itemPath))
        // Keys are looked up by percent-encoded path; a decoded path holding a "%"
        // could equal another item's encoded path, so such items are not cached.
        if itemPath.utf8.contains(UInt8(ascii: "%")) { return slot }
        return table.withLock { table in
            if let existing = table[itemPath] { return existing }
            if table.count >= capacity { table.removeAll() }
            table[itemPath] = slot
            return slot
        }
    }
}
