#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Descriptor-relative calls (openat, fstatat, unlinkat, fdopendir) for walking a
/// directory tree without following links and without building long paths: a
/// tree deeper than PATH_MAX, or a directory swapped for a link midway, cannot
/// send a walk outside the directory it started in. Names are raw bytes (NUL
/// terminated), so an entry whose name is not UTF-8 is still reachable.
extension Sys {
    /// openat(2) of the directory `name` in `directory` (AT_FDCWD for a path) with
    /// O_DIRECTORY|O_NOFOLLOW: fails (ELOOP/ENOTDIR) rather than follow a link.
    static func openDirectory(_ name: [CChar], in directory: Int32, path: String) throws -> Int32 {
        if let e = FaultInjection.errno(for: .open, path: path) { throw AppGroupError.systemCall(operation: "openat", path: path, errno: e) }
        while true {
            let fd = name.withUnsafeBufferPointer { systemOpenat(directory, $0.baseAddress, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw AppGroupError.systemCall(operation: "openat", path: path, errno: errno)
        }
    }

    /// fstatat(2) with AT_SYMLINK_NOFOLLOW. Nil when nothing is there.
    static func lstat(_ name: [CChar], in directory: Int32, path: String) throws -> FileStatus? {
        if let e = FaultInjection.errno(for: .stat, path: path) { throw AppGroupError.systemCall(operation: "fstatat", path: path, errno: e) }
        var st = FileStatus()
        let result = name.withUnsafeBufferPointer { systemFstatat(directory, $0.baseAddress, &st, AT_SYMLINK_NOFOLLOW) }
        if result == 0 { return st }
        if errno == ENOENT { return nil }
        throw AppGroupError.systemCall(operation: "fstatat", path: path, errno: errno)
    }

    /// unlinkat(2); `directory: true` adds AT_REMOVEDIR. False when already gone.
    @discardableResult
    static func unlink(_ name: [CChar], in parent: Int32, directory: Bool, path: String) throws -> Bool {
        if let e = FaultInjection.errno(for: .unlink, path: path) { throw AppGroupError.systemCall(operation: "unlinkat", path: path, errno: e) }
        while true {
            let result = name.withUnsafeBufferPointer { systemUnlinkat(parent, $0.baseAddress, directory ? AT_REMOVEDIR : 0) }
            if result == 0 { return true }
            if errno == EINTR { continue }
            if errno == ENOENT { return false }
            throw AppGroupError.systemCall(operation: "unlinkat", path: path, errno: errno)
        }
    }

    /// The names in the open directory `fd` (without "." and ".."), as raw bytes
    /// with their NUL. Reads through a duplicate, so `fd` stays open and usable.
    static func entryNames(ofDirectory fd: Int32, path: String) throws -> [[CChar]] {
        let copy = dup(fd)
        if copy < 0 { throw AppGroupError.systemCall(operation: "dup", path: path, errno: errno) }
        guard let dir = systemFdopendir(copy) else {
            let code = errno
            _ = Glibc_close(copy)
            throw AppGroupError.systemCall(operation: "fdopendir", path: path, errno: code)
        }
        defer { _ = systemClosedirTree(dir) }
        var names: [[CChar]] = []
        while true {
            errno = 0
            guard let entry = systemReaddirTree(dir) else {
                if errno != 0 { throw AppGroupError.systemCall(operation: "readdir", path: path, errno: errno) }
                return names
            }
            let name: [CChar] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                raw.prefix(while: { $0 != 0 }).map { CChar(bitPattern: $0) } + [0]
            }
            if name == [0x2E, 0] || name == [0x2E, 0x2E, 0] { continue }
            names.append(name)
        }
    }

    /// A path component as raw bytes with a NUL, for the calls above.
    static func component(_ name: String) -> [CChar] {
        name.utf8.map { CChar(bitPattern: $0) } + [0]
    }
}

private func systemOpenat(_ dir: Int32, _ name: UnsafePointer<CChar>?, _ flags: Int32) -> Int32 {
    guard let name else { return -1 }
    return openat(dir, name, flags)
}
private func systemFstatat(_ dir: Int32, _ name: UnsafePointer<CChar>?, _ st: inout stat, _ flags: Int32) -> Int32 {
    guard let name else { return -1 }
    return fstatat(dir, name, &st, flags)
}
private func systemUnlinkat(_ dir: Int32, _ name: UnsafePointer<CChar>?, _ flags: Int32) -> Int32 {
    guard let name else { return -1 }
    return unlinkat(dir, name, flags)
}
private func systemFdopendir(_ fd: Int32) -> OpaquePointer? { fdopendir(fd) }
private func systemClosedirTree(_ d: OpaquePointer) -> Int32 { closedir(d) }
private func systemReaddirTree(_ d: OpaquePointer) -> UnsafeMutablePointer<dirent>? { readdir(d) }
private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
