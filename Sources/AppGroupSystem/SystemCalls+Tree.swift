import Foundation

/// Descriptor-relative calls (openat, fstatat, unlinkat, fdopendir) for walking a
/// directory tree without following links and without building long paths: a
/// tree deeper than PATH_MAX, or a directory swapped for a link midway, cannot
/// send a walk outside the directory it started in. Names are raw bytes (NUL
/// terminated), so an entry whose name is not UTF-8 is still reachable.
extension SystemCalls {
    /// openat(2) of the directory `name` in `directory` (AT_FDCWD for a path) with
    /// O_DIRECTORY|O_NOFOLLOW: fails (ELOOP/ENOTDIR) rather than follow a link.
    package static func openDirectory(_ name: [CChar], in directory: Int32, path: String) throws(SystemError) -> Int32 {
        try valueOrErrno(retryOnInterrupt: true) {
            system_openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0, path: path)
        }.get("openat", path)
    }

    /// fstatat(2) with AT_SYMLINK_NOFOLLOW. Nil when nothing is there.
    package static func lstat(_ name: [CChar], in directory: Int32, path: String) throws(SystemError) -> FileStatus? {
        var st = FileStatus()
        switch nothingOrErrno(retryOnInterrupt: true, { system_fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW, path: path) }) {
        case .success: return st
        case .failure(let code) where code == .ENOENT: return nil
        case .failure(let code): throw SystemError.call(operation: "fstatat", path: path, errno: code)
        }
    }

    /// unlinkat(2); `directory: true` adds AT_REMOVEDIR. False when already gone.
    @discardableResult
    package static func unlink(_ name: [CChar], in parent: Int32, directory: Bool, path: String) throws(SystemError) -> Bool {
        switch nothingOrErrno(retryOnInterrupt: true, { system_unlinkat(parent, name, directory ? AT_REMOVEDIR : 0, path: path) }) {
        case .success: return true
        case .failure(let code) where code == .ENOENT: return false
        case .failure(let code): throw SystemError.call(operation: "unlinkat", path: path, errno: code)
        }
    }

    /// The names in the open directory `fd` (without "." and ".."), as raw bytes
    /// with their NUL. Reads through a duplicate, so `fd` stays open and usable.
    package static func entryNames(ofDirectory fd: Int32, path: String) throws(SystemError) -> [[CChar]] {
        let dir = try openStream(duplicating: fd, path: path)
        defer { _ = system_closedir(dir) }
        var names: [[CChar]] = []
        do {
            try forEachName(in: dir, path: path) { name in names.append(name.map { CChar(bitPattern: $0) } + [0]) }
        } catch let error as SystemError {
            throw error
        } catch {
            // Unreachable: the body above throws nothing; forEachName throws only SystemError.
            throw .call(operation: "readdir", path: path, errno: .EIO)
        }
        return names
    }

    /// A path component as raw bytes with a NUL, for the calls above.
    package static func component(_ name: String) -> [CChar] {
        name.utf8.map { CChar(bitPattern: $0) } + [0]
    }
}

extension SystemCalls {
    /// mkdirat(2) of `name` in `directory` with `mode`. False when something
    /// already stands there (check what with ``lstat(_:in:path:)``).
    @discardableResult
    package static func makeDirectory(_ name: [CChar], in directory: Int32, mode: mode_t = directoryMode, path: String) throws(SystemError) -> Bool {
        switch nothingOrErrno(retryOnInterrupt: true, { system_mkdirat(directory, name, mode, path: path) }) {
        case .success: return true
        case .failure(let code) where code == .EEXIST: return false
        case .failure(let code): throw SystemError.call(operation: "mkdirat", path: path, errno: code)
        }
    }

    /// renameat(2) of `name` in `directory` to `newName` in `destination`: neither
    /// name is resolved through a link (only their last components are looked up,
    /// relative to the descriptors).
    package static func rename(_ name: [CChar], in directory: Int32, to newName: [CChar], in destination: Int32, path: String) throws(SystemError) {
        try nothingOrErrno(retryOnInterrupt: true) { system_renameat(directory, name, destination, newName, path: path) }.get("renameat", path)
    }
}

extension SystemCalls {
    /// Gives this user back read, write and search permission on the directory
    /// `name` in `directory` without following a link: opened O_PATH|O_NOFOLLOW
    /// (which needs no permission on it), then chmod(2) through its
    /// `/proc/self/fd` entry, which names that very directory. Nothing is changed
    /// when `name` is not a directory. For removing a tree whose writer took its
    /// own permissions away (mode 0000 or 0500), which chmod(2) by path could be
    /// redirected from by a link swapped in.
    package static func allowOwner(directory name: [CChar], in directory: Int32, path: String) throws(SystemError) {
        let fd = try valueOrErrno(retryOnInterrupt: true) {
            system_openat(directory, name, openPathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0, path: path)
        }.get("openat", path)
        defer { close(fd) }
        let status = try fstat(fd, path: path)
        guard isDirectory(status) else { return }
        let mode = (status.st_mode & 0o7777) | 0o700
        try nothingOrErrno(retryOnInterrupt: true) { system_chmod("/proc/self/fd/\(fd)", mode, path: path) }.get("chmod", path)
    }

    /// ``copyContents(from:sourcePath:to:destinationPath:)`` that refuses more
    /// than `limit` bytes: it stops one chunk past the limit at most and throws
    /// ``SystemError/fileTooLarge(path:size:limit:)`` (size: what was read).
    @discardableResult
    package static func copyContents(from source: Int32, sourcePath: String, to destination: Int32, destinationPath: String,
                                     limit: Int64) throws(SystemError) -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return 0 }
        var total: Int64 = 0
        while true {
            let n = try valueOrErrno(retryOnInterrupt: true) { system_read(source, base, buffer.count, path: sourcePath) }.get("read", sourcePath)
            if n == 0 { return total }
            total += Int64(n)
            if total > limit { throw SystemError.fileTooLarge(path: sourcePath, size: total, limit: limit) }
            try writeAll(destination, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: destinationPath)
        }
    }
}

extension SystemCalls {
    /// O_PATH (Linux's value on every architecture Swift runs on): Glibc declares it
    /// only under _GNU_SOURCE, which Swift's import does not define.
    static let openPathOnly: Int32 = 0o10000000
}
