import AppGroupSystem
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

    /// Opens the directory at `url`, walking down from `root` without following a
    /// link (`ContainedDirectory`); nil when nothing is there.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a symbolic link or a
    ///   non-directory on the way, ``AppGroupError/untrustedDirectory(path:owner:mode:user:)``
    ///   for another user's directory.
    package static func open(_ url: URL, below root: ContainerRoot?) throws(AppGroupError) -> DirectoryHandle? {
        try open(standardizedPath: url.standardizedFileURL.path, below: root)
    }

    /// ``open(_:below:)`` for a path already standardized (no `.`, `..` or `//`;
    /// absolute): a caller that opens the same directory at every operation makes
    /// the path once, since standardizing a URL costs more than the walk's own work.
    package static func open(standardizedPath path: String, below root: ContainerRoot?) throws(AppGroupError) -> DirectoryHandle? {
        guard let directory = try ContainedDirectory.openIfPresent(path, below: root) else { return nil }
        return try checked(DirectoryHandle(directory))
    }

    /// `handle` after checking its owner (this user) and repairing its mode to 0700.
    static func checked(_ handle: DirectoryHandle) throws(AppGroupError) -> DirectoryHandle {
        let path = handle.path
        let st = try fromSystem(SystemCalls.fstat(handle.fd, path: path))
        let user = SystemCalls.effectiveUser
        guard st.st_uid == user else {
            throw .untrustedDirectory(path: path, owner: UInt32(st.st_uid), mode: UInt32(st.st_mode & 0o7777), user: UInt32(user))
        }
        if st.st_mode & 0o077 != 0 {
            // Our own directory, made by an older version or under a loose umask:
            // it holds secrets, so not even reading is left to others.
            try fromSystem(SystemCalls.fchmod(handle.fd, SystemCalls.directoryMode, path: path))
        }
        return handle
    }

    /// Makes the directory at `url` and any missing directory above it, 0700
    /// (mkdir(2) and chmod(2)). Check the result with ``open(_:below:)``: this
    /// neither refuses a link above nor checks an existing directory's owner.
    package static func makeDirectories(_ url: URL) throws(AppGroupError) {
        try fromSystem(SystemCalls.makeDirectories(url.standardizedFileURL.path))
    }

    func pathOf(_ name: String) -> String { directory.path(of: name) }

    /// The identity of the regular file `name`, nil when absent.
    /// - Throws: for a symbolic link or another kind of file standing there.
    package func identity(of name: String) throws(AppGroupError) -> FileIdentity? {
        guard let st = try fromSystem(SystemCalls.lstat(at: fd, name, path: pathOf(name))) else { return nil }
        try Self.requireRegular(st, path: pathOf(name))
        return FileIdentity(st)
    }

    /// The device, inode and size of the regular file `name`, from an lstat that
    /// asks for no timestamps: for a file about to be written in place (see
    /// ``SystemCalls/lstatUntimed(at:_:path:)``). Nil when absent.
    package func inodeIdentity(of name: String) throws(AppGroupError) -> InodeIdentity? {
        guard let st = try fromSystem(SystemCalls.lstatUntimed(at: fd, name, path: pathOf(name))) else { return nil }
        try Self.requireRegular(st, path: pathOf(name))
        return InodeIdentity(st)
    }

    /// Reads the regular file `name` (not over `limit` bytes) with the identity of
    /// the inode read; nil when absent.
    package func read(_ name: String, limit: Int64) throws(AppGroupError) -> (data: Data, identity: FileIdentity)? {
        let path = pathOf(name)
        let file: Int32
        do {
            file = try SystemCalls.open(at: fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, path: path)
        } catch .call(_, _, let code) where code == .ENOENT {
            return nil
        } catch .call(_, _, let code) where code == .ELOOP {
            throw .unsafePath(path: path, problem: "a symbolic link stands where the file belongs; it was not followed, remove it")
        } catch {
            throw AppGroupError(error)
        }
        defer { SystemCalls.close(file) }
        let st = try fromSystem(SystemCalls.fstat(file, path: path))
        try Self.requireRegular(st, path: path)
        if Int64(st.st_size) > limit { throw .fileTooLarge(path: path, size: Int64(st.st_size), limit: limit) }
        let data = try fromSystem(SystemCalls.readAll(file, path: path, sizeHint: Int(st.st_size), limit: limit))
        return (data, FileIdentity(st))
    }

    /// Replaces `name` with `data` as ``AtomicFile/write(_:to:below:durable:)`` does: a
    /// 0600 temporary (`.<name>.tmp-<pid>-<random>`) written, fsynced and renamed over it.
    package func write(_ data: Data, to name: String, durable: Bool = true) throws(AppGroupError) {
        try AtomicFile.write(data, named: name, in: directory, durable: durable)
    }

    /// Removes the file `name`; false when it was not there.
    @discardableResult
    package func remove(_ name: String, durable: Bool = true) throws(AppGroupError) -> Bool {
        let removed = try fromSystem(SystemCalls.unlink(at: fd, name, path: pathOf(name)))
        if removed && durable { try fromSystem(SystemCalls.fsync(fd, path: path)) }
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
        try? SystemCalls.forEachEntry(at: fd, path: path) { entry in
            guard entry.hasPrefix(prefix) else { return }
            let parts = entry.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else { return }
            if !holdingWriteLock {
                guard let pid = pid_t(parts[0]), !SystemCalls.processExists(pid),
                      let st = try? SystemCalls.lstat(at: fd, entry, path: pathOf(entry)) else { return }
                // Whole seconds, as the check always counted them.
                guard Date().timeIntervalSince1970 - SystemCalls.modified(st).rounded(.down) >= 1 else { return }
            }
            stale.append(entry)
        }
        return stale.filter { (try? SystemCalls.unlink(at: fd, $0, path: pathOf($0))) == true }.count
    }

    private static func requireRegular(_ st: SystemCalls.FileStatus, path: String) throws(AppGroupError) {
        guard SystemCalls.isRegular(st) else {
            if SystemCalls.isSymlink(st) { throw .unsafePath(path: path, problem: "a symbolic link stands where the file belongs; it was not followed, remove it") }
            throw .notARegularFile(path: path, kind: SystemCalls.fileKind(st.st_mode))
        }
    }
}
