#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stats that leave the timestamps out, for files about to be written in place.
///
/// Since Linux 6.13 a stat that reads a file's change time makes the file's next
/// write take a fine-grained time, and so dirty its inode (multigrain timestamps;
/// see agc_statx_untimed). A caller that checks a file's identity, kind or size
/// before writing into it (the share queue's sequence file and logs, on every
/// enqueue) uses these: statx(2) asking for no times. Where statx is missing
/// (ENOSYS) or refused by a filter (EPERM), fstatat(2) stands in: the same
/// answers, only without the saving. The times in the result are zero.
extension SystemCalls {
    /// fstat(2) of `fd`, without the timestamps.
    package static func fstatUntimed(_ fd: Int32, path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        try untimed(fd, "", emptyPath, &st, path: path).get("fstat", path)
        return st
    }

    /// fstatat(2) of `name` in `directory` with AT_SYMLINK_NOFOLLOW, without the
    /// timestamps. Nil when nothing is there.
    package static func lstatUntimed(at directory: Int32, _ name: String, path: String) throws(SystemError) -> FileStatus? {
        var st = FileStatus()
        switch untimed(directory, name, AT_SYMLINK_NOFOLLOW, &st, path: path) {
        case .success: return st
        case .failure(let code) where code == .ENOENT || code == .ENOTDIR: return nil
        case .failure(let code): throw SystemError.call(operation: "fstatat", path: path, errno: code)
        }
    }

    /// AT_EMPTY_PATH (Linux): the descriptor itself, with the name "".
    private static let emptyPath: Int32 = 0x1000

    private static func untimed(_ directory: Int32, _ name: String, _ flags: Int32, _ st: inout FileStatus, path: String) -> Result<Void, Errno> {
        let result = nothingOrErrno(retryOnInterrupt: true) { system_statx_untimed(directory, name, flags, &st, path: path) }
        guard case .failure(let code) = result, code == .ENOSYS || code == .EPERM else { return result }
        if flags & emptyPath != 0 {
            return nothingOrErrno(retryOnInterrupt: true) { system_fstat(directory, &st, path: path) }
        }
        return nothingOrErrno(retryOnInterrupt: true) { system_fstatat(directory, name, &st, flags, path: path) }
    }
}
