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

    let lockPath: String
    let mode: Mode
    private let descriptor: DescriptorPool.Descriptor

    private init(lockPath: String, mode: Mode, descriptor: DescriptorPool.Descriptor) {
        self.lockPath = lockPath
        self.mode = mode
        self.descriptor = descriptor
    }

    /// The lock file that guards the item at the standardized absolute `itemPath`:
    /// `<dir>/.<name>.lock`. String work only: this is on every coordination's path.
    static func lockPath(forStandardizedPath itemPath: String, lastSlash: Int? = nil) throws -> String {
        let bytes = itemPath.utf8
        guard let slashOffset = lastSlash ?? bytes.lastIndex(of: UInt8(ascii: "/")).map({ bytes.distance(from: bytes.startIndex, to: $0) }) else {
            throw AppGroupError.unsafePath(path: itemPath, problem: "not an absolute path; coordinate absolute file URLs")
        }
        let slash = bytes.index(bytes.startIndex, offsetBy: slashOffset)
        let name = itemPath[bytes.index(after: slash)...]
        guard !name.isEmpty, name != ".", name != ".." else {
            throw AppGroupError.unsafePath(path: itemPath, problem: "cannot coordinate the root directory or a '.'/'..' path; name a file or directory")
        }
        var lockPath = String()
        lockPath.reserveCapacity(bytes.count + 7)
        lockPath += itemPath[..<slash]
        lockPath += "/."
        lockPath += name
        lockPath += ".lock"
        return lockPath
    }

    /// Takes the lock, waiting up to `timeout` seconds (forever when nil).
    /// - Throws: ``AppGroupError/coordinationTimedOut(path:lockFile:seconds:)`` after the
    ///   timeout; file-system errors when the lock file cannot be opened.
    static func acquire(_ lockPath: String, mode: Mode, timeout: TimeInterval?, itemPath: String) throws -> FileLock {
        let deadline = timeout.map { DispatchTime.now().uptimeNanoseconds + UInt64(max($0, 0) * 1e9) }
        while true {
            let descriptor = try DescriptorPool.shared.take(lockPath)
            do {
                try wait(descriptor.fd, mode: mode, deadline: deadline, lockPath: lockPath, itemPath: itemPath, timeout: timeout ?? 0)
            } catch {
                Sys.close(descriptor.fd)
                throw error
            }
            // A lock on a file that was unlinked meanwhile (its directory removed and
            // made again, say) protects nothing: check the inode still has a name.
            if try isCurrent(descriptor, lockPath) { return FileLock(lockPath: lockPath, mode: mode, descriptor: descriptor) }
            _ = Sys.lock(descriptor.fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: lockPath)
            Sys.close(descriptor.fd)
        }
    }

    /// Tries once, without waiting; nil when another holder conflicts.
    static func tryAcquire(_ lockPath: String, mode: Mode) throws -> FileLock? {
        while true {
            let descriptor = try DescriptorPool.shared.take(lockPath)
            let result = Sys.lock(descriptor.fd, mode.rawValue, wait: false, path: lockPath)
            if result == EINTR { DescriptorPool.shared.give(back: descriptor, for: lockPath); continue }
            if result == EAGAIN || result == EACCES || result == EWOULDBLOCK {
                DescriptorPool.shared.give(back: descriptor, for: lockPath)
                return nil
            }
            if result != 0 {
                Sys.close(descriptor.fd)
                throw AppGroupError.systemCall(operation: "fcntl(F_OFD_SETLK)", path: lockPath, errno: result)
            }
            if try isCurrent(descriptor, lockPath) { return FileLock(lockPath: lockPath, mode: mode, descriptor: descriptor) }
            _ = Sys.lock(descriptor.fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: lockPath)
            Sys.close(descriptor.fd)
        }
    }

    /// Releases the lock; the descriptor goes back to the pool for the next holder.
    func release() {
        _ = Sys.lock(descriptor.fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: lockPath)
        DescriptorPool.shared.give(back: descriptor, for: lockPath)
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
    private static func isCurrent(_ descriptor: DescriptorPool.Descriptor, _ lockPath: String) throws -> Bool {
        try Sys.fstat(descriptor.fd, path: lockPath).st_nlink > 0
    }
}

/// Idle descriptors of lock files, kept open so that taking a lock costs one
/// fcntl and one fstat rather than an open, an fstat and a close. A descriptor is
/// used by one holder at a time, so every holder still has its own open file
/// description.
final class DescriptorPool: Sendable {
    static let shared = DescriptorPool()

    /// An open lock file.
    struct Descriptor: Sendable {
        let fd: Int32
    }

    private let idle = Locked<[String: [Descriptor]]>([:])
    private static let maxIdlePerPath = 4
    private static let maxPaths = 256

    func take(_ lockPath: String) throws -> Descriptor {
        if let descriptor = idle.withLock({ $0[lockPath]?.popLast() }) { return descriptor }
        let fd = try Sys.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW)
        do {
            let st = try Sys.fstat(fd, path: lockPath)
            guard Sys.isRegular(st) else {
                throw AppGroupError.notARegularFile(path: lockPath, kind: Sys.fileKind(st.st_mode))
            }
            // O_CREAT applies the umask; a lock file every peer opens must stay 0600.
            if st.st_mode & 0o777 != Sys.fileMode { try Sys.fchmod(fd, Sys.fileMode, path: lockPath) }
            return Descriptor(fd: fd)
        } catch {
            Sys.close(fd)
            throw error
        }
    }

    func give(back descriptor: Descriptor, for lockPath: String) {
        let keep = idle.withLock { table -> Bool in
            if table[lockPath] == nil && table.count >= Self.maxPaths { return false }
            if table[lockPath, default: []].count >= Self.maxIdlePerPath { return false }
            table[lockPath, default: []].append(descriptor)
            return true
        }
        if !keep { Sys.close(descriptor.fd) }
    }
}
