#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys
import Foundation

/// The package's system calls as the rest of it uses them: the domain layer of the
/// seam. Three layers, bottom up:
/// - `Syscalls.swift`: the raw calls, one libc function each, with the fault and
///   trace hook (``FaultInjection``, debug builds only) inside;
/// - `RetryOnInterrupt.swift`: EINTR retried, a failure turned into an ``Errno``;
/// - here: the policy (O_CLOEXEC always, a missing file as nil or false, a
///   symbolic link refused, modes 0700/0600, whole reads and writes) and errors as
///   ``SystemError/call(operation:path:errno:)`` naming the C function.
/// Each function's doc comment names the C functions it calls.
package enum SystemCalls {
    package typealias FileStatus = stat

    package static let directoryMode: mode_t = 0o700
    package static let fileMode: mode_t = 0o600

    /// open(2). Always adds O_CLOEXEC.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = fileMode) throws(SystemError) -> Int32 {
        try valueOrErrno(retryOnInterrupt: true) { system_open(path, flags | O_CLOEXEC, mode, path: path) }.get("open", path)
    }

    /// openat(2): `name` relative to the directory `directory`. Always adds
    /// O_CLOEXEC. `path` (the full path) names the file in errors and fault plans.
    package static func open(at directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = fileMode, path: String) throws(SystemError) -> Int32 {
        try valueOrErrno(retryOnInterrupt: true) { system_openat(directory, name, flags | O_CLOEXEC, mode, path: path) }.get("openat", path)
    }

    /// `relative` below `directory`, following no symbolic link at any component
    /// and never resolving outside `directory` (openat2 with RESOLVE_BENEATH and
    /// RESOLVE_NO_SYMLINKS), with O_CLOEXEC. The errno as a value: callers fall
    /// back to a walk one component at a time on anything but success and
    /// ENOENT (ENOSYS on old kernels and under seccomp filters that lack it).
    package static func openBeneath(_ directory: Int32, _ relative: String, _ flags: Int32, path: String) -> Result<Int32, Errno> {
        // withCString: the implicit conversion of a String argument copies it into a new array.
        relative.withCString { name in valueOrErrno(retryOnInterrupt: true) { system_open_beneath(directory, name, flags | O_CLOEXEC, path: path) } }
    }

    /// renameat(2) within one directory descriptor: atomically replaces `to`.
    package static func rename(at directory: Int32, _ from: String, to: String, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_renameat(directory, from, directory, to, path: path) }.get("renameat", path)
    }

    /// unlinkat(2) of a file in `directory`. Returns false when it was already gone.
    @discardableResult
    package static func unlink(at directory: Int32, _ name: String, path: String) throws(SystemError) -> Bool {
        try absentAsFalse(nothingOrErrno(retryOnInterrupt: true) { system_unlinkat(directory, name, 0, path: path) }, "unlinkat", path)
    }

    /// fstatat(2) with AT_SYMLINK_NOFOLLOW (an lstat relative to `directory`).
    /// Returns nil when nothing is there.
    package static func lstat(at directory: Int32, _ name: String, path: String) throws(SystemError) -> FileStatus? {
        var st = FileStatus()
        let result = nothingOrErrno(retryOnInterrupt: true) { system_fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW, path: path) }
        return try absentAsNil(result, "fstatat", path) ? st : nil
    }

    /// agc_name_thread (CAppGroupSys, pthread_setname_np): names the calling
    /// thread for the kernel, cut to 15 bytes. For the package's own threads.
    package static func nameCurrentThread(_ name: String) {
        _ = agc_name_thread(name)
    }

    /// geteuid(2): the user files must belong to.
    package static var effectiveUser: uid_t { system_geteuid() }

    /// getpwuid_r(3): the home directory of `user` in the password database; nil
    /// when the user has no entry (or no home).
    package static func homeDirectory(ofUser user: uid_t) -> String? {
        system_home_directory(user)
    }

    /// close(2). Errors are ignored: after close the descriptor is gone either way
    /// (and it is not retried on EINTR: on Linux the descriptor is already closed).
    package static func close(_ fd: Int32) {
        _ = system_close(fd)
    }

    /// write(2) until every byte is written.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(SystemError) {
        guard let base = bytes.baseAddress else { return } // nothing to write
        var offset = 0
        while offset < bytes.count {
            let n = try valueOrErrno(retryOnInterrupt: true) { system_write(fd, base + offset, bytes.count - offset, path: path) }.get("write", path)
            if n == 0 { throw SystemError.call(operation: "write", path: path, errno: .EIO) }
            offset += n
        }
    }

    /// pwrite(2) of all of `bytes` at `offset`, leaving the rest of the file as it is.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(SystemError) {
        guard let base = bytes.baseAddress else { return } // nothing to write
        var done = 0
        while done < bytes.count {
            let n = try valueOrErrno(retryOnInterrupt: true) {
                system_pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done), path: path)
            }.get("pwrite", path)
            if n == 0 { throw SystemError.call(operation: "pwrite", path: path, errno: .EIO) }
            done += n
        }
    }

    /// read(2) until end of file, refusing more than `limit` bytes: it reads at most
    /// `limit + 1` bytes and holds no more, so a file that grows while it is read, a
    /// pipe or a terminal that never ends costs `limit` bytes of memory, not all it
    /// would send. `sizeHint` (what fstat said) only sizes the first buffer.
    /// - Throws: ``SystemError/fileTooLarge(path:size:limit:)`` with `size` `limit + 1`
    ///   when there is more (the real size is not known: nothing more was read).
    package static func readAll(_ fd: Int32, path: String, sizeHint: Int, limit: Int64) throws(SystemError) -> Data {
        // One byte past the limit tells "exactly the limit" from "more".
        let cap = limit >= Int64(Int.max) ? Int.max : Int(max(limit, 0)) + 1
        // A buffer of our own handed to Data as it is: `Data(count:)` zero-filled
        // it and setting `count` at the end reallocated, both on the path of a read
        // of a suite after another process's save.
        var capacity = min(max(sizeHint, 0), cap - 1) + 1
        guard var buffer = malloc(capacity) else { throw SystemError.call(operation: "malloc", path: path, errno: .ENOMEM) }
        var length = 0
        do throws(SystemError) {
            while true {
                // Doubling, up to the cap (never past it: a full buffer at the cap has thrown).
                if length == capacity {
                    let grown = capacity + min(capacity, cap - capacity)
                    guard let moved = realloc(buffer, grown) else { throw SystemError.call(operation: "realloc", path: path, errno: .ENOMEM) }
                    buffer = moved
                    capacity = grown
                }
                let room = capacity - length, base = buffer + length
                let n = try valueOrErrno(retryOnInterrupt: true) { system_read(fd, base, room, path: path) }.get("read", path)
                if n == 0 { break }
                length += n
                if Int64(length) > limit { throw SystemError.fileTooLarge(path: path, size: Int64(length), limit: limit) }
                // A regular file reads short only at its end: a short read that ends
                // exactly at the size fstat gave is the whole file, without the read
                // that would return 0 (one system call of the four a re-read makes).
                if n < room && length == sizeHint { break }
            }
        } catch {
            free(buffer)
            throw error
        }
        if length == 0 {
            free(buffer)
            return Data()
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
    }

    /// fsync(2).
    package static func fsync(_ fd: Int32, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_fsync(fd, path: path) }.get("fsync", path)
    }

    /// fdatasync(2): the file's data and what is needed to read it back (its size),
    /// without the timestamps fsync also writes.
    package static func fdatasync(_ fd: Int32, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_fdatasync(fd, path: path) }.get("fdatasync", path)
    }

    /// rename(2): atomically replaces `to`.
    package static func rename(_ from: String, to: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_rename(from, to, path: to) }.get("rename", to)
    }

    /// link(2): a second name for a file; fails with EEXIST rather than replacing
    /// anything already at `to` (which rename(2) would do silently).
    package static func link(_ from: String, to: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_link(from, to, path: to) }.get("link", to)
    }

    /// unlink(2). Returns false when the file was already gone.
    @discardableResult
    package static func unlink(_ path: String) throws(SystemError) -> Bool {
        try absentAsFalse(nothingOrErrno(retryOnInterrupt: true) { system_unlink(path, path: path) }, "unlink", path)
    }

    /// rmdir(2). Returns false when the directory was already gone.
    @discardableResult
    package static func rmdir(_ path: String) throws(SystemError) -> Bool {
        try absentAsFalse(nothingOrErrno(retryOnInterrupt: true) { system_rmdir(path, path: path) }, "rmdir", path)
    }

    /// mkdir(2) with mode 0700, then chmod(2) so the umask cannot widen or narrow it.
    /// Returns false when the directory already existed (another process may have
    /// made it a moment ago). Refuses anything that is not a real directory.
    @discardableResult
    package static func makeDirectory(_ path: String) throws(SystemError) -> Bool {
        switch nothingOrErrno(retryOnInterrupt: true, { system_mkdir(path, directoryMode, path: path) }) {
        case .success:
            _ = system_chmod(path, directoryMode, path: path)
            return true
        case .failure(let code) where code == .EEXIST:
            break
        case .failure(let code):
            throw SystemError.call(operation: "mkdir", path: path, errno: code)
        }
        guard let st = try lstat(path) else { throw SystemError.call(operation: "mkdir", path: path, errno: .ENOENT) }
        if isSymlink(st) {
            throw SystemError.unsafePath(path: path, problem: "a symbolic link stands where a directory belongs; remove it")
        }
        guard isDirectory(st) else {
            throw SystemError.unsafePath(path: path, problem: "a \(fileKind(st.st_mode)) stands where a directory belongs; remove it")
        }
        return false
    }

    /// ``makeDirectory(_:)`` for `path` and every missing directory above it, top
    /// down (mkdir -p): a parent that exists is used as it is (stat(2), so a link
    /// above is followed: the caller chose the path), a missing one is made 0700.
    package static func makeDirectories(_ path: String) throws(SystemError) {
        var missing: [String] = []
        var current = path
        while current != "/", !current.isEmpty, try stat(current) == nil {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() { try makeDirectory(directory) }
    }

    /// fchmod(2).
    package static func fchmod(_ fd: Int32, _ mode: mode_t, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_fchmod(fd, mode, path: path) }.get("fchmod", path)
    }

    /// lstat(2): true only when nothing is at `path` (ENOENT); false when
    /// something is, or when it cannot be told (another error).
    package static func isAbsent(_ path: String) -> Bool {
        do { return try lstat(path) == nil } catch { return false }
    }

    /// lstat(2). Returns nil when nothing is there.
    package static func lstat(_ path: String) throws(SystemError) -> FileStatus? {
        var st = FileStatus()
        return try lstat(path, into: &st) ? st : nil
    }

    /// lstat(2), giving only the device and inode: the locking protocol's step 5
    /// compares nothing else, and each copy of the whole status costs more than
    /// the comparison. Nil when nothing is there.
    package static func lstatIdentity(_ path: String) throws(SystemError) -> (device: UInt64, inode: UInt64)? {
        var st = FileStatus()
        return try lstat(path, into: &st) ? (UInt64(st.st_dev), UInt64(st.st_ino)) : nil
    }

    /// lstat(2) of a place a coordination tree may be: true when `path` is a
    /// directory (not a link) of `user` that neither group nor others may write.
    /// Anything else, or nothing, or a path that cannot be looked at, is false.
    package static func isPrivateDirectory(_ path: String, of user: uid_t) -> Bool {
        var st = FileStatus()
        guard (try? lstat(path, into: &st)) == true else { return false }
        return st.st_mode & S_IFMT == S_IFDIR && st.st_uid == user && st.st_mode & 0o022 == 0
    }

    /// lstat(2) into `st`; false when nothing is there.
    @inline(__always)
    private static func lstat(_ path: String, into st: inout FileStatus) throws(SystemError) -> Bool {
        // withCString: the implicit conversion of a String argument copies it into a
        // new array, a third of the lstat wrapper's work on the lock's fast path.
        let result = path.withCString { name in nothingOrErrno(retryOnInterrupt: true) { system_lstat(name, &st, path: path) } }
        return try absentAsNil(result, "lstat", path)
    }

    /// readlink(2): what the symbolic link at `path` points to (as stored; not resolved).
    package static func linkTarget(_ path: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            valueOrErrno(retryOnInterrupt: true) { system_readlink(path, pointer.baseAddress!, pointer.count - 1, path: path) }
        }
        switch count {
        case .success(let n): return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        case .failure(let code): throw SystemError.call(operation: "readlink", path: path, errno: code)
        }
    }

    /// stat(2), following links. Returns nil when nothing is there.
    package static func stat(_ path: String) throws(SystemError) -> FileStatus? {
        var st = FileStatus()
        return try absentAsNil(nothingOrErrno(retryOnInterrupt: true) { system_stat(path, &st, path: path) }, "stat", path) ? st : nil
    }

    /// fstat(2).
    package static func fstat(_ fd: Int32, path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        try nothingOrErrno(retryOnInterrupt: true) { system_fstat(fd, &st, path: path) }.get("fstat", path)
        return st
    }

    /// agc_lock (CAppGroupSys): fcntl(F_OFD_SETLK / F_OFD_SETLKW) on Linux, flock
    /// elsewhere. Returns nil on success or the errno. EINTR is returned, not
    /// retried: the caller decides (a wait with a deadline must look at the clock).
    package static func lock(_ fd: Int32, _ mode: Int32, wait: Bool, path: String) -> Errno? {
        switch nothingOrErrno(retryOnInterrupt: false, { system_lock(fd, mode, wait: wait, path: path) }) {
        case .success: return nil
        case .failure(let code): return code
        }
    }

    /// Releases the descriptor's lock, then closes it. A lock belongs to the open
    /// file description, which a child forked meanwhile by any thread (a spawn,
    /// until its exec) shares through its copy of the descriptor: closed alone, the
    /// lock would stay held until that child lets go.
    package static func unlockAndClose(_ fd: Int32, path: String) {
        _ = lock(fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: path)
        close(fd)
    }

    #if os(Linux)
    /// inotify_init1(2), non-blocking and close-on-exec.
    package static func inotifyInit() throws(SystemError) -> Int32 {
        try valueOrErrno(retryOnInterrupt: true) { system_inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }.get("inotify_init1", "")
    }

    /// inotify_add_watch(2).
    package static func inotifyAddWatch(_ fd: Int32, _ path: String, _ mask: UInt32) throws(SystemError) -> Int32 {
        try valueOrErrno(retryOnInterrupt: true) { system_inotify_add_watch(fd, path, mask, path: path) }.get("inotify_add_watch", path)
    }
    #endif

    /// pipe(2) then fcntl(2) FD_CLOEXEC and O_NONBLOCK on both ends.
    package static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try nothingOrErrno(retryOnInterrupt: true) { system_pipe(&fds) }.get("pipe", "")
        for fd in fds {
            _ = system_fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = system_fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    /// poll(2) for readability of `fds`; `timeout` in milliseconds, -1 forever.
    /// Returns the descriptors that became readable (empty on timeout or EINTR:
    /// the caller's loop polls again).
    package static func pollReadable(_ fds: [Int32], timeout: Int32) -> [Int32] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = system_poll(&entries, nfds_t(entries.count), timeout)
        if n <= 0 { return [] }
        return entries.filter { $0.revents != 0 }.map(\.fd)
    }

    /// read(2) once into `buffer`; returns the byte count, 0 at end or when nothing
    /// is ready (EAGAIN), -1 on another error.
    package static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String = "") -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        switch valueOrErrno(retryOnInterrupt: true, { system_read(fd, base, buffer.count, path: path) }) {
        case .success(let n): return n
        case .failure(let code): return code == .EAGAIN ? 0 : -1
        }
    }

    /// write(2) of one byte, ignoring errors (used to wake a poll).
    package static func poke(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = system_write(fd, &byte, 1, path: "")
    }

    /// opendir(3) / readdir(3) / closedir(3): calls `body` with each entry name
    /// (without "." and ".."), one at a time, so that listing a huge directory
    /// takes constant memory. Returns false when the directory is missing.
    @discardableResult
    package static func forEachEntry(in path: String, _ body: (String) throws -> Void) throws -> Bool {
        let dir: OpaquePointer
        switch pointerOrErrno(retryOnInterrupt: true, { system_opendir(path, path: path) }) {
        case .success(let opened): dir = opened
        case .failure(let code) where code == .ENOENT: return false
        case .failure(let code): throw SystemError.call(operation: "opendir", path: path, errno: code)
        }
        defer { _ = system_closedir(dir) }
        try forEachName(in: dir, path: path) { try body(String(decoding: $0, as: UTF8.self)) }
        return true
    }

    /// ``forEachEntry(in:_:)`` for an open directory (fdopendir(3) of a duplicate
    /// of `fd`, so `fd` stays open and its position untouched for the caller).
    package static func forEachEntry(at fd: Int32, path: String, _ body: (String) throws -> Void) throws {
        let dir = try openStream(duplicating: fd, path: path)
        defer { _ = system_closedir(dir) }
        try forEachName(in: dir, path: path) { try body(String(decoding: $0, as: UTF8.self)) }
    }

    /// fcntl(F_DUPFD_CLOEXEC) then fdopendir(3): a directory stream of its own on
    /// the directory `fd` is open on. Close it with closedir(3).
    package static func openStream(duplicating fd: Int32, path: String) throws(SystemError) -> OpaquePointer {
        let copy = try valueOrErrno(retryOnInterrupt: true) { system_dupCloexec(fd, path: path) }.get("dup", path)
        switch pointerOrErrno(retryOnInterrupt: true, { system_fdopendir(copy, path: path) }) {
        case .success(let dir): return dir
        case .failure(let code):
            close(copy)
            throw SystemError.call(operation: "fdopendir", path: path, errno: code)
        }
    }

    /// readdir(3) to the end of `dir`, calling `body` with each name's bytes
    /// (without its NUL; "." and ".." skipped).
    package static func forEachName(in dir: OpaquePointer, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        while true {
            guard let entry = system_readdir(dir, path: path) else {
                if errno != 0 { throw SystemError.call(operation: "readdir", path: path, errno: .current) }
                return
            }
            let name = entryName(entry)
            if name.elementsEqual([0x2E]) || name.elementsEqual([0x2E, 0x2E]) { continue }
            try body(name)
        }
    }

    /// The name of an entry readdir(3) returned, read where it lies. A record is
    /// only `d_reclen` bytes long, so loading `entry.pointee.d_name` (a 256-byte
    /// array to Swift) copies past its end, and crashes when that runs off the end
    /// of readdir's buffer into an unmapped page (seen: SIGSEGV in memcpy under load).
    package static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> UnsafeRawBufferPointer {
        let start = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
        return UnsafeRawBufferPointer(start: start, count: strlen(start.assumingMemoryBound(to: CChar.self)))
    }

    /// read(2) and write(2) in 64 KiB chunks from `source` to `destination` until
    /// the end of `source`, so copying a large file takes constant memory.
    /// Returns the byte count copied.
    @discardableResult
    package static func copyContents(from source: Int32, sourcePath: String, to destination: Int32, destinationPath: String) throws(SystemError) -> Int64 {
        try copyContents(from: source, sourcePath: sourcePath, to: destination, destinationPath: destinationPath, limit: .max)
    }

    /// getrlimit(2): how many descriptors the process may have open (its soft
    /// RLIMIT_NOFILE; 1024, the common default, when that cannot be read).
    package static var openFileLimit: UInt64 { system_open_file_limit() ?? 1024 }

    /// kill(2) with signal 0: false only when no process has that id (ESRCH).
    package static func processExists(_ pid: pid_t) -> Bool {
        guard pid > 0 else { return false }
        switch nothingOrErrno(retryOnInterrupt: true, { system_kill(pid, 0) }) {
        case .success: return true
        case .failure(let code): return code != .ESRCH
        }
    }

    /// True when `code` is what link(2) or rename(2) answer when the new name is
    /// taken: EEXIST (link), ENOTEMPTY or EEXIST (a directory onto a non-empty
    /// directory), ENOTDIR and EISDIR (a directory onto a file, and the reverse).
    package static func isNameTaken(_ code: Errno) -> Bool { code == .EEXIST || code == .ENOTEMPTY || code == .ENOTDIR || code == .EISDIR }

    package static func fileKind(_ mode: mode_t) -> String {
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

    package static func isRegular(_ st: FileStatus) -> Bool { (st.st_mode & S_IFMT) == S_IFREG }
    package static func isDirectory(_ st: FileStatus) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }
    package static func isSymlink(_ st: FileStatus) -> Bool { (st.st_mode & S_IFMT) == S_IFLNK }

    /// A call whose "nothing there" (ENOENT, or ENOTDIR for a parent that is a
    /// file) means false rather than an error.
    @inline(__always)
    private static func absentAsFalse(_ result: Result<Void, Errno>, _ operation: String, _ path: String) throws(SystemError) -> Bool {
        switch result {
        case .success: return true
        case .failure(let code) where code == .ENOENT: return false
        case .failure(let code): throw SystemError.call(operation: operation, path: path, errno: code)
        }
    }

    /// A status call whose "nothing there" (ENOENT, or ENOTDIR for a path through
    /// a file) means nil rather than an error.
    @inline(__always)
    private static func absentAsNil(_ result: Result<Void, Errno>, _ operation: String, _ path: String) throws(SystemError) -> Bool {
        switch result {
        case .success: return true
        case .failure(let code) where code == .ENOENT || code == .ENOTDIR: return false
        case .failure(let code): throw SystemError.call(operation: operation, path: path, errno: code)
        }
    }
}
