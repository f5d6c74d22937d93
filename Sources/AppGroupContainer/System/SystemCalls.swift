#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys
import Foundation

/// Every system call the package makes goes through this one file, so that tests
/// can inject failures (``FaultInjection``) and so that a reader can audit what
/// touches the disk. Each wrapper names the C function it calls; EINTR is retried
/// everywhere except in ``lock(_:_:wait:path:)``, whose caller decides.
enum Sys {
    typealias FileStatus = stat

    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    @inline(__always)
    private static func fail(_ call: FaultInjection.Call, _ path: String) -> Int32? {
        FaultInjection.errno(for: call, path: path)
    }

    /// open(2). Always adds O_CLOEXEC.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = fileMode) throws -> Int32 {
        if let e = fail(.open, path) { throw AppGroupError.systemCall(operation: "open", path: path, errno: e) }
        while true {
            let fd = Glibc_open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "open", path: path, errno: errno)
        }
    }

    /// openat(2): `name` relative to the directory `directory`. Always adds
    /// O_CLOEXEC. `path` (the full path) names the file in errors and fault plans.
    static func open(at directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = fileMode, path: String) throws -> Int32 {
        if let e = fail(.open, path) { throw AppGroupError.systemCall(operation: "open", path: path, errno: e) }
        while true {
            let fd = systemOpenat(directory, name, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "open", path: path, errno: errno)
        }
    }

    /// renameat(2) within one directory descriptor: atomically replaces `to`.
    static func rename(at directory: Int32, _ from: String, to: String, path: String) throws {
        if let e = fail(.rename, path) { throw AppGroupError.systemCall(operation: "rename", path: path, errno: e) }
        while systemRenameat(directory, from, directory, to) != 0 {
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "rename", path: path, errno: errno)
        }
    }

    /// unlinkat(2) of a file in `directory`. Returns false when it was already gone.
    @discardableResult
    static func unlink(at directory: Int32, _ name: String, path: String) throws -> Bool {
        if let e = fail(.unlink, path) { throw AppGroupError.systemCall(operation: "unlink", path: path, errno: e) }
        while systemUnlinkat(directory, name, 0) != 0 {
            if errno == EINTR { continue }
            if errno == ENOENT { return false }
            throw AppGroupError.systemCall(operation: "unlink", path: path, errno: errno)
        }
        return true
    }

    /// fstatat(2) with AT_SYMLINK_NOFOLLOW (an lstat relative to `directory`).
    /// Returns nil when nothing is there.
    static func lstat(at directory: Int32, _ name: String, path: String) throws -> FileStatus? {
        if let e = fail(.stat, path) { throw AppGroupError.systemCall(operation: "lstat", path: path, errno: e) }
        var st = FileStatus()
        if systemFstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 { return st }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw AppGroupError.systemCall(operation: "lstat", path: path, errno: errno)
    }

    /// geteuid(2): the user files must belong to.
    static var effectiveUser: uid_t { geteuid() }

    /// close(2). Errors are ignored: after close the descriptor is gone either way.
    static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    /// write(2) until every byte is written.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        if let e = fail(.write, path) { throw AppGroupError.systemCall(operation: "write", path: path, errno: e) }
        guard let base = bytes.baseAddress else { return } // nothing to write
        var offset = 0
        while offset < bytes.count {
            let n = systemWrite(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw AppGroupError.systemCall(operation: "write", path: path, errno: errno)
            }
            if n == 0 { throw AppGroupError.systemCall(operation: "write", path: path, errno: EIO) }
            offset += n
        }
    }

    /// pwrite(2) of all of `bytes` at `offset`, leaving the rest of the file as it is.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws {
        if let e = fail(.write, path) { throw AppGroupError.systemCall(operation: "pwrite", path: path, errno: e) }
        guard let base = bytes.baseAddress else { return } // nothing to write
        var done = 0
        while done < bytes.count {
            let n = systemPwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw AppGroupError.systemCall(operation: "pwrite", path: path, errno: errno)
            }
            if n == 0 { throw AppGroupError.systemCall(operation: "pwrite", path: path, errno: EIO) }
            done += n
        }
    }

    /// read(2) until end of file, refusing more than `limit` bytes.
    static func readAll(_ fd: Int32, path: String, sizeHint: Int, limit: Int64) throws -> Data {
        if let e = fail(.read, path) { throw AppGroupError.systemCall(operation: "read", path: path, errno: e) }
        var data = Data(count: max(sizeHint, 0) + 1)
        var length = 0
        while true {
            if length == data.count { data.count = data.count * 2 }
            let capacity = data.count - length
            let n = data.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 } // never: count >= 1
                return systemRead(fd, base + length, capacity)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw AppGroupError.systemCall(operation: "read", path: path, errno: errno)
            }
            if n == 0 { break }
            length += n
            if Int64(length) > limit { throw AppGroupError.fileTooLarge(path: path, size: Int64(length), limit: limit) }
        }
        data.count = length
        return data
    }

    /// fsync(2).
    static func fsync(_ fd: Int32, path: String) throws {
        if let e = fail(.fsync, path) { throw AppGroupError.systemCall(operation: "fsync", path: path, errno: e) }
        while systemFsync(fd) != 0 {
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "fsync", path: path, errno: errno)
        }
    }

    /// rename(2): atomically replaces `to`.
    static func rename(_ from: String, to: String) throws {
        if let e = fail(.rename, to) { throw AppGroupError.systemCall(operation: "rename", path: to, errno: e) }
        while systemRename(from, to) != 0 {
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "rename", path: to, errno: errno)
        }
    }

    /// link(2): a second name for a file; fails with EEXIST rather than replacing
    /// anything already at `to` (which rename(2) would do silently).
    static func link(_ from: String, to: String) throws {
        if let e = fail(.rename, to) { throw AppGroupError.systemCall(operation: "link", path: to, errno: e) }
        while systemLink(from, to) != 0 {
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "link", path: to, errno: errno)
        }
    }

    /// unlink(2). Returns false when the file was already gone.
    @discardableResult
    static func unlink(_ path: String) throws -> Bool {
        if let e = fail(.unlink, path) { throw AppGroupError.systemCall(operation: "unlink", path: path, errno: e) }
        while systemUnlink(path) != 0 {
            if errno == EINTR { continue }
            if errno == ENOENT { return false }
            throw AppGroupError.systemCall(operation: "unlink", path: path, errno: errno)
        }
        return true
    }

    /// rmdir(2). Returns false when the directory was already gone.
    @discardableResult
    static func rmdir(_ path: String) throws -> Bool {
        if let e = fail(.unlink, path) { throw AppGroupError.systemCall(operation: "rmdir", path: path, errno: e) }
        if systemRmdir(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw AppGroupError.systemCall(operation: "rmdir", path: path, errno: errno)
    }

    /// mkdir(2) with mode 0700, then chmod(2) so the umask cannot widen or narrow it.
    /// Returns false when the directory already existed (another process may have
    /// made it a moment ago). Refuses anything that is not a real directory.
    @discardableResult
    static func makeDirectory(_ path: String) throws -> Bool {
        if let e = fail(.mkdir, path) { throw AppGroupError.systemCall(operation: "mkdir", path: path, errno: e) }
        if systemMkdir(path, directoryMode) == 0 {
            _ = systemChmod(path, directoryMode)
            return true
        }
        let code = errno
        guard code == EEXIST else { throw AppGroupError.systemCall(operation: "mkdir", path: path, errno: code) }
        guard let st = try lstat(path) else { throw AppGroupError.systemCall(operation: "mkdir", path: path, errno: ENOENT) }
        if (st.st_mode & S_IFMT) == S_IFLNK {
            throw AppGroupError.unsafePath(path: path, problem: "a symbolic link stands where a directory belongs; remove it")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw AppGroupError.unsafePath(path: path, problem: "a \(fileKind(st.st_mode)) stands where a directory belongs; remove it")
        }
        return false
    }

    /// fchmod(2).
    static func fchmod(_ fd: Int32, _ mode: mode_t, path: String) throws {
        if systemFchmod(fd, mode) != 0 {
            throw AppGroupError.systemCall(operation: "fchmod", path: path, errno: errno)
        }
    }

    /// lstat(2). Returns nil when nothing is there.
    static func lstat(_ path: String) throws -> FileStatus? {
        if let e = fail(.stat, path) { throw AppGroupError.systemCall(operation: "lstat", path: path, errno: e) }
        var st = FileStatus()
        if systemLstat(path, &st) == 0 { return st }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw AppGroupError.systemCall(operation: "lstat", path: path, errno: errno)
    }

    /// stat(2), following links. Returns nil when nothing is there.
    static func stat(_ path: String) throws -> FileStatus? {
        if let e = fail(.stat, path) { throw AppGroupError.systemCall(operation: "stat", path: path, errno: e) }
        var st = FileStatus()
        if systemStat(path, &st) == 0 { return st }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw AppGroupError.systemCall(operation: "stat", path: path, errno: errno)
    }

    /// fstat(2).
    static func fstat(_ fd: Int32, path: String) throws -> FileStatus {
        if let e = fail(.fstat, path) { throw AppGroupError.systemCall(operation: "fstat", path: path, errno: e) }
        var st = FileStatus()
        if systemFstat(fd, &st) == 0 { return st }
        throw AppGroupError.systemCall(operation: "fstat", path: path, errno: errno)
    }

    /// readlink(2) of a path known to be a symbolic link.
    static func readLink(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = systemReadlink(path, &buffer, buffer.count - 1)
        if n < 0 { throw AppGroupError.systemCall(operation: "readlink", path: path, errno: errno) }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// fcntl(F_OFD_SETLK / F_OFD_SETLKW) on Linux, flock elsewhere (see CAppGroupSys).
    /// Returns 0 on success or the errno; EINTR is returned, not retried.
    static func lock(_ fd: Int32, _ mode: Int32, wait: Bool, path: String) -> Int32 {
        if mode != Int32(AGC_LOCK_UNLOCK), let e = fail(.lock, path) { return e }
        return agc_lock(fd, mode, wait ? 1 : 0) == 0 ? 0 : errno
    }

    #if os(Linux)
    /// inotify_init1(2), non-blocking and close-on-exec.
    static func inotifyInit() throws -> Int32 {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { throw AppGroupError.systemCall(operation: "inotify_init1", path: "", errno: errno) }
        return fd
    }

    /// inotify_add_watch(2).
    static func inotifyAddWatch(_ fd: Int32, _ path: String, _ mask: UInt32) throws -> Int32 {
        let wd = inotify_add_watch(fd, path, mask)
        if wd < 0 { throw AppGroupError.systemCall(operation: "inotify_add_watch", path: path, errno: errno) }
        return wd
    }
    #endif

    /// pipe(2) then FD_CLOEXEC and O_NONBLOCK on both ends.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        if systemPipe(&fds) != 0 { throw AppGroupError.systemCall(operation: "pipe", path: "", errno: errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    /// poll(2) for readability of `fds`; `timeout` in milliseconds, -1 forever.
    /// Returns the descriptors that became readable (empty on timeout or EINTR).
    static func pollReadable(_ fds: [Int32], timeout: Int32) -> [Int32] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = poll(&entries, nfds_t(entries.count), timeout)
        if n <= 0 { return [] }
        return entries.filter { $0.revents != 0 }.map(\.fd)
    }

    /// read(2) once into `buffer`; returns the byte count, 0 at end or when nothing
    /// is ready (EAGAIN), -1 on another error.
    static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        while true {
            let n = systemRead(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            return errno == EAGAIN ? 0 : -1
        }
    }

    /// write(2) of one byte, ignoring errors (used to wake a poll).
    static func poke(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = systemWrite(fd, &byte, 1)
    }

    /// opendir(3) / readdir(3) / closedir(3): calls `body` with each entry name
    /// (without "." and ".."), one at a time, so that listing a huge directory
    /// takes constant memory. Returns false when the directory is missing.
    @discardableResult
    static func forEachEntry(in path: String, _ body: (String) throws -> Void) throws -> Bool {
        if let e = fail(.open, path) { throw AppGroupError.systemCall(operation: "opendir", path: path, errno: e) }
        guard let dir = systemOpendir(path) else {
            if errno == ENOENT { return false }
            throw AppGroupError.systemCall(operation: "opendir", path: path, errno: errno)
        }
        defer { _ = systemClosedir(dir) }
        while true {
            errno = 0
            guard let entry = systemReaddir(dir) else {
                if errno != 0 { throw AppGroupError.systemCall(operation: "readdir", path: path, errno: errno) }
                return true
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            try body(name)
        }
    }

    /// ``forEachEntry(in:_:)`` for an open directory (fdopendir(3) of a duplicate
    /// of `fd`, so `fd` stays open and its position untouched for the caller).
    static func forEachEntry(at fd: Int32, path: String, _ body: (String) throws -> Void) throws {
        if let e = fail(.open, path) { throw AppGroupError.systemCall(operation: "opendir", path: path, errno: e) }
        let copy = systemDupCloexec(fd)
        if copy < 0 { throw AppGroupError.systemCall(operation: "dup", path: path, errno: errno) }
        guard let dir = systemFdopendir(copy) else {
            let code = errno
            _ = systemClose(copy)
            throw AppGroupError.systemCall(operation: "fdopendir", path: path, errno: code)
        }
        defer { _ = systemClosedir(dir) }
        while true {
            errno = 0
            guard let entry = systemReaddir(dir) else {
                if errno != 0 { throw AppGroupError.systemCall(operation: "readdir", path: path, errno: errno) }
                return
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            try body(name)
        }
    }

    /// read(2) and write(2) in 64 KiB chunks from `source` to `destination` until
    /// the end of `source`, so copying a large file takes constant memory.
    /// Returns the byte count copied.
    @discardableResult
    static func copyContents(from source: Int32, sourcePath: String, to destination: Int32, destinationPath: String) throws -> Int64 {
        if let e = fail(.read, sourcePath) { throw AppGroupError.systemCall(operation: "read", path: sourcePath, errno: e) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return 0 }
        var total: Int64 = 0
        while true {
            let n = systemRead(source, base, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw AppGroupError.systemCall(operation: "read", path: sourcePath, errno: errno)
            }
            if n == 0 { return total }
            try writeAll(destination, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: destinationPath)
            total += Int64(n)
        }
    }

    /// True when `code` is what link(2) or rename(2) answer when the new name is
    /// taken: EEXIST (link), ENOTEMPTY or EEXIST (a directory onto a non-empty
    /// directory), ENOTDIR and EISDIR (a directory onto a file, and the reverse).
    static func isNameTaken(_ code: Int32) -> Bool { code == EEXIST || code == ENOTEMPTY || code == ENOTDIR || code == EISDIR }

    static var usesOpenFileDescriptionLocks: Bool { agc_lock_uses_ofd() == 1 }

    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "regular file"
        case S_IFDIR: return "directory"
        case S_IFLNK: return "symbolic link"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        default: return "special file"
        }
    }

    static func isRegular(_ st: FileStatus) -> Bool { (st.st_mode & S_IFMT) == S_IFREG }
    static func isDirectory(_ st: FileStatus) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }
    static func isSymlink(_ st: FileStatus) -> Bool { (st.st_mode & S_IFMT) == S_IFLNK }
}

// The libc functions under names that cannot collide with the wrappers above.
private func Glibc_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemOpenat(_ d: Int32, _ name: String, _ flags: Int32, _ mode: mode_t) -> Int32 { openat(d, name, flags, mode) }
private func systemRenameat(_ d1: Int32, _ a: String, _ d2: Int32, _ b: String) -> Int32 { renameat(d1, a, d2, b) }
private func systemUnlinkat(_ d: Int32, _ name: String, _ flags: Int32) -> Int32 { unlinkat(d, name, flags) }
private func systemFstatat(_ d: Int32, _ name: String, _ st: inout stat, _ flags: Int32) -> Int32 { fstatat(d, name, &st, flags) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
private func systemPwrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int, _ o: off_t) -> Int { pwrite(fd, p, n, o) }
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int { read(fd, p, n) }
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemRename(_ a: String, _ b: String) -> Int32 { rename(a, b) }
private func systemLink(_ a: String, _ b: String) -> Int32 { link(a, b) }
private func systemUnlink(_ p: String) -> Int32 { unlink(p) }
private func systemRmdir(_ p: String) -> Int32 { rmdir(p) }
private func systemMkdir(_ p: String, _ m: mode_t) -> Int32 { mkdir(p, m) }
private func systemChmod(_ p: String, _ m: mode_t) -> Int32 { chmod(p, m) }
private func systemFchmod(_ fd: Int32, _ m: mode_t) -> Int32 { fchmod(fd, m) }
private func systemLstat(_ p: String, _ st: inout stat) -> Int32 { lstat(p, &st) }
private func systemStat(_ p: String, _ st: inout stat) -> Int32 { stat(p, &st) }
private func systemFstat(_ fd: Int32, _ st: inout stat) -> Int32 { fstat(fd, &st) }
private func systemPipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 { pipe(fds) }
private func systemOpendir(_ p: String) -> OpaquePointer? { opendir(p) }
private func systemClosedir(_ d: OpaquePointer) -> Int32 { closedir(d) }
private func systemFdopendir(_ fd: Int32) -> OpaquePointer? { fdopendir(fd) }
private func systemDupCloexec(_ fd: Int32) -> Int32 { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
private func systemReaddir(_ d: OpaquePointer) -> UnsafeMutablePointer<dirent>? { readdir(d) }
private func systemReadlink(_ p: String, _ b: UnsafeMutablePointer<CChar>, _ n: Int) -> Int { readlink(p, b, n) }

// MARK: - Processes

extension Sys {
    /// kill(2) with signal 0: false only when no process has that id (ESRCH).
    static func processExists(_ pid: pid_t) -> Bool {
        pid > 0 && (systemKill(pid, 0) == 0 || errno != ESRCH)
    }
}

private func systemKill(_ p: pid_t, _ s: Int32) -> Int32 { kill(p, s) }
