import Foundation
import AppGroupSystem

/// The directories of a container (the root, a group's directory, `Library`,
/// `Library/Caches`, `Library/Preferences`, `Applications/<bundle id>/...`) must
/// belong to the process's user and be writable by no one else: whoever can write
/// a directory can replace the files in it, and a suite planted by another user
/// would be read as the process's own.
///
/// - A directory the package makes is 0700 and the process's own.
/// - An existing directory owned by another user (a group directory made
///   beforehand by someone else, say) is refused with
///   ``AppGroupError/untrustedDirectory(path:owner:mode:user:)``; nothing in it is
///   read or written.
/// - An existing directory of the process's own user that group or others may
///   write is repaired: chmod 0700, with a line through ``Diagnostics/warn(_:)``.
///   (Files someone may have planted while it was open stay; the line says so.)
package enum TrustedDirectory {
    /// Makes `path` (mode 0700) or checks the directory already there.
    package static func make(_ path: String) throws(AppGroupError) {
        if try fromSystem(SystemCalls.makeDirectory(path)) { return }
        guard let st = try fromSystem(SystemCalls.lstat(path)) else {
            throw .systemCall(operation: "lstat", path: path, errno: .ENOENT)
        }
        try check(st, path)
    }

    /// Checks every directory from `root` down to `path` itself (links refused,
    /// owners and modes as ``make(_:)`` checks them): for a store that makes
    /// directories of its own below a container (the share inbox under
    /// `Library/Application Support`). A path under no root (nil, or a root that
    /// does not hold it) is left as it is.
    package static func requireChain(to path: String, below root: ContainerRoot?) throws(AppGroupError) {
        guard let root = root?.path, ContainedDirectory.holds(root, path) else { return }
        var reached = root
        for bytes in path.utf8.dropFirst(root.utf8.count).split(separator: UInt8(ascii: "/")) {
            reached += "/" + String(decoding: bytes, as: UTF8.self)
            guard let st = try fromSystem(SystemCalls.lstat(reached)) else { continue }
            guard SystemCalls.isDirectory(st) else {
                throw .unsafePath(path: reached, problem: "a \(SystemCalls.fileKind(st.st_mode)) stands where a directory of the container belongs; it was not followed. Remove it")
            }
            try check(st, reached)
        }
    }

    /// Checks the owner and mode of the directory whose status is `st`.
    static func check(_ st: SystemCalls.FileStatus, _ path: String) throws(AppGroupError) {
        let user = SystemCalls.effectiveUser
        let mode = UInt32(st.st_mode & 0o7777)
        guard st.st_uid == user else {
            throw .untrustedDirectory(path: path, owner: UInt32(st.st_uid), mode: mode, user: UInt32(user))
        }
        if st.st_mode & 0o022 != 0 {
            // Through a descriptor of the very directory checked (no link followed),
            // so the repair cannot land on something put there since.
            let fd = try fromSystem(SystemCalls.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW))
            defer { SystemCalls.close(fd) }
            let opened = try fromSystem(SystemCalls.fstat(fd, path: path))
            guard opened.st_dev == st.st_dev, opened.st_ino == st.st_ino, opened.st_uid == user else {
                throw .unsafePath(path: path, problem: "the directory changed while it was being checked; try again")
            }
            try fromSystem(SystemCalls.fchmod(fd, SystemCalls.directoryMode, path: path))
            Diagnostics.warn("container directory \(path) was writable by others (mode \(String(mode, radix: 8))); it is yours, so it was set to 700. "
                             + "Check it for files you did not make.")
        }
    }
}
