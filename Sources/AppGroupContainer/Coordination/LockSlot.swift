import Foundation

/// One lock file and the idle descriptors open on it.
///
/// Descriptors are kept open so that taking a lock costs one fcntl and one lstat
/// (the protocol's step 5) rather than an open, an fstat and a close. A
/// descriptor serves one holder at a time, so every holder still has an open file
/// description of its own, and two holders in one process exclude each other as
/// two processes do.
final class LockSlot: @unchecked Sendable {
    /// An open descriptor on the lock file and the inode it was opened on.
    struct Handle: Sendable {
        let fd: Int32
        let device: UInt64
        let inode: UInt64
    }

    let lockPath: String
    private let mutex = NSLock()
    private var idle: [Handle] = []
    private static let maxIdle = 4

    init(lockPath: String) { self.lockPath = lockPath }

    deinit { for handle in idle { Sys.close(handle.fd) } }

    /// An idle descriptor, or a new one (O_RDWR|O_CREAT|O_NOFOLLOW, 0600), opened
    /// in its directory reached without following links below the container root
    /// (``ContainedDirectory``), so a planted link never makes a lock file outside.
    func take() throws -> Handle {
        mutex.lock()
        let reused = idle.popLast()
        mutex.unlock()
        if let reused { return reused }
        let slash = lockPath.utf8.lastIndex(of: UInt8(ascii: "/")) ?? lockPath.utf8.startIndex
        let directoryPath = slash == lockPath.utf8.startIndex ? "/" : String(lockPath[..<slash])
        let name = String(lockPath[lockPath.utf8.index(after: slash)...])
        let directory = try ContainedDirectory.open(directoryPath)
        defer { directory.close() }
        let fd: Int32
        do {
            fd = try Sys.open(at: directory.fd, name, O_RDWR | O_CREAT | O_NOFOLLOW, path: lockPath)
        } catch AppGroupError.systemCall(_, _, let code) where code == .ELOOP {
            throw AppGroupError.unsafePath(path: lockPath, problem: "a symbolic link stands where the lock file belongs; it was not followed, remove it")
        }
        do {
            let st = try Sys.fstat(fd, path: lockPath)
            guard Sys.isRegular(st) else {
                throw AppGroupError.notARegularFile(path: lockPath, kind: Sys.fileKind(st.st_mode))
            }
            // O_CREAT applies the umask; a lock file every peer opens must stay 0600.
            if st.st_mode & 0o777 != Sys.fileMode { try Sys.fchmod(fd, Sys.fileMode, path: lockPath) }
            return Handle(fd: fd, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        } catch {
            Sys.close(fd)
            throw error
        }
    }

    /// Returns an unlocked descriptor for the next holder.
    func giveBack(_ handle: Handle) {
        mutex.lock()
        let keep = idle.count < Self.maxIdle
        if keep { idle.append(handle) }
        mutex.unlock()
        if !keep { Sys.close(handle.fd) }
    }

    /// Closes every idle descriptor: the path was found to name another file, so
    /// they may all be open on the old one.
    func dropIdle() {
        mutex.lock()
        let stale = idle
        idle.removeAll()
        mutex.unlock()
        for handle in stale { Sys.close(handle.fd) }
    }
}

/// The process's lock slots, by item path (exact bytes: see ``ExactPath``), so
/// that a coordination of an item seen before costs one dictionary lookup: no
/// path parsing, no lock-path building.
enum LockSlots {
    private static let table = Locked<[ExactPath: LockSlot]>([:])
    // Bounded: past this many items the table starts afresh (slots in use live on
    // with their holders; their descriptors close when the last holder is done).
    private static let capacity = 1024

    static func cached(_ itemPath: String) -> LockSlot? {
        let key = ExactPath(itemPath)
        return table.withLock { $0[key] }
    }

    static func slot(forStandardizedPath itemPath: String) throws -> LockSlot {
        if let slot = cached(itemPath) { return slot }
        let slot = LockSlot(lockPath: try FileLock.lockPath(forStandardizedPath: itemPath))
        // Keys are looked up by percent-encoded path; a decoded path holding a "%"
        // could equal another item's encoded path, so such items are not cached.
        if itemPath.utf8.contains(UInt8(ascii: "%")) { return slot }
        let key = ExactPath(itemPath)
        return table.withLock { table in
            if let existing = table[key] { return existing }
            if table.count >= capacity { table.removeAll() }
            table[key] = slot
            return slot
        }
    }
}
