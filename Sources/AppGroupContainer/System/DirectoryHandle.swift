import Foundation

/// An open directory whose files are read, replaced and removed relative to its
/// descriptor, for stores that must never leave the root (the keychain).
///
/// Opening refuses a symbolic link (O_NOFOLLOW), anything not a directory, a
/// directory owned by another user, and repairs group or other write permission on
/// the process's own directory (0700). Every later access resolves names against
/// the descriptor (openat, renameat, unlinkat, all without following links), so a
/// link swapped in after the check cannot redirect a read or a write: the check and
/// the use are the same open. Open a handle per access, never keep one across
/// calls: a directory moved away meanwhile must not keep receiving data.
package final class DirectoryHandle {
    /// The directory's path, for messages and fault plans.
    package var path: String { directory.path }
    let directory: ContainedDirectory
    var fd: Int32 { directory.fd }

    init(_ directory: ContainedDirectory) { self.directory = directory }

    deinit { directory.close() }

    /// Opens the directory at `url`, walking down from its container root without
    /// following a link (``ContainedDirectory``); nil when nothing is there.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a symbolic link or a
    ///   non-directory on the way, ``AppGroupError/untrustedDirectory(path:owner:mode:user:)``
    ///   for another user's directory.
    package static func open(_ url: URL) throws -> DirectoryHandle? {
        let path = url.standardizedFileURL.path
        do {
            return try checked(DirectoryHandle(try ContainedDirectory.open(path)))
        } catch AppGroupError.systemCall(_, _, let code) where code == .ENOENT {
            return nil
        }
    }

    /// `handle` after checking its owner (this user) and repairing its mode to 0700.
    static func checked(_ handle: DirectoryHandle) throws -> DirectoryHandle {
        let path = handle.path
        let st = try Sys.fstat(handle.fd, path: path)
        let user = Sys.effectiveUser
        guard st.st_uid == user else {
            throw AppGroupError.untrustedDirectory(path: path, owner: UInt32(st.st_uid), mode: UInt32(st.st_mode & 0o7777), user: UInt32(user))
        }
        if st.st_mode & 0o077 != 0 {
            // Our own directory, made by an older version or under a loose umask:
            // it holds secrets, so not even reading is left to others.
            try Sys.fchmod(handle.fd, Sys.directoryMode, path: path)
        }
        return handle
    }

    /// Makes the directory at `url` and any missing directory above it, 0700
    /// (mkdir(2) and chmod(2), through ``Sys``). Check the result with ``open(_:)``:
    /// this neither refuses a link above nor checks an existing directory's owner.
    package static func makeDirectories(_ url: URL) throws {
        try Sys.makeDirectories(url.standardizedFileURL.path)
    }

    func pathOf(_ name: String) -> String { directory.path(of: name) }

    /// The identity of the regular file `name`, nil when absent.
    /// - Throws: for a symbolic link or another kind of file standing there.
    package func identity(of name: String) throws -> AtomicFile.Identity? {
        guard let st = try Sys.lstat(at: fd, name, path: pathOf(name)) else { return nil }
        try Self.requireRegular(st, path: pathOf(name))
        return AtomicFile.Identity(st)
    }

    /// Reads the regular file `name` (not over `limit` bytes) with the identity of
    /// the inode read; nil when absent.
    package func read(_ name: String, limit: Int64) throws -> (data: Data, identity: AtomicFile.Identity)? {
        let path = pathOf(name)
        let file: Int32
        do {
            file = try Sys.open(at: fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, path: path)
        } catch AppGroupError.systemCall(_, _, let code) where code == .ENOENT {
            return nil
        } catch AppGroupError.systemCall(_, _, let code) where code == .ELOOP {
            throw AppGroupError.unsafePath(path: path, problem: "a symbolic link stands where the file belongs; it was not followed, remove it")
        }
        defer { Sys.close(file) }
        let st = try Sys.fstat(file, path: path)
        try Self.requireRegular(st, path: path)
        if Int64(st.st_size) > limit { throw AppGroupError.fileTooLarge(path: path, size: Int64(st.st_size), limit: limit) }
        let data = try Sys.readAll(file, path: path, sizeHint: Int(st.st_size), limit: limit)
        return (data, AtomicFile.Identity(st))
    }

    /// Replaces `name` with `data` as ``AtomicFile/write(_:to:durable:)`` does: a 0600
    /// temporary (`.<name>.tmp-<pid>-<random>`) written, fsynced and renamed over it.
    package func write(_ data: Data, to name: String, durable: Bool = true) throws {
        try AtomicFile.write(data, named: name, in: directory, durable: durable)
    }

    /// Removes the file `name`; false when it was not there.
    @discardableResult
    package func remove(_ name: String, durable: Bool = true) throws -> Bool {
        let removed = try Sys.unlink(at: fd, name, path: pathOf(name))
        if removed && durable { try Sys.fsync(fd, path: path) }
        return removed
    }

    /// Removes the temporary files saves of `name` left (`.<name>.tmp-<pid>-<n>`,
    /// exactly that shape, so another file's temporaries are never taken); returns
    /// how many went. Only temporaries whose writer is provably gone are removed:
    /// - `holdingWriteLock`: the caller holds `name`'s write lock and every save
    ///   happens under it, so no live writer has a temporary: all go;
    /// - otherwise (a reader): those whose pid no longer exists, and at least a
    ///   second old (a writer in another pid namespace would not show up by pid).
    @discardableResult
    package func removeTemporaries(of name: String, holdingWriteLock: Bool) -> Int {
        let prefix = AtomicFile.temporaryPrefix(for: name)
        var stale: [String] = []
        try? Sys.forEachEntry(at: fd, path: path) { entry in
            guard entry.hasPrefix(prefix) else { return }
            let parts = entry.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else { return }
            if !holdingWriteLock {
                guard let pid = pid_t(parts[0]), !Sys.processExists(pid),
                      let st = try? Sys.lstat(at: fd, entry, path: pathOf(entry)) else { return }
                #if canImport(Darwin)
                let modified = Double(st.st_mtimespec.tv_sec)
                #else
                let modified = Double(st.st_mtim.tv_sec)
                #endif
                guard Date().timeIntervalSince1970 - modified >= 1 else { return }
            }
            stale.append(entry)
        }
        return stale.filter { (try? Sys.unlink(at: fd, $0, path: pathOf($0))) == true }.count
    }

    private static func requireRegular(_ st: Sys.FileStatus, path: String) throws {
        guard Sys.isRegular(st) else {
            if Sys.isSymlink(st) { throw AppGroupError.unsafePath(path: path, problem: "a symbolic link stands where the file belongs; it was not followed, remove it") }
            throw AppGroupError.notARegularFile(path: path, kind: Sys.fileKind(st.st_mode))
        }
    }
}
