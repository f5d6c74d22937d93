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
