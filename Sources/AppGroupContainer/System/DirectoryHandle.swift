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
    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { Sys.close(fd) }

    /// Opens the directory at `url`; nil when nothing is there.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a symbolic link, a
    ///   non-directory or another user's directory.
    package static func open(_ url: URL) throws -> DirectoryHandle? {
        let path = url.standardizedFileURL.path
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        } catch AppGroupError.systemCall(_, _, let code) where code == ENOENT {
            return nil
        } catch AppGroupError.systemCall(_, _, let code) where code == ELOOP || code == ENOTDIR {
            let kind = (try? Sys.lstat(path)).flatMap { $0 }.map { Sys.isSymlink($0) ? "symbolic link" : Sys.fileKind($0.st_mode) } ?? "non-directory"
            throw AppGroupError.unsafePath(path: path, problem: "a \(kind) stands where a directory belongs; it was not followed. Remove it")
        }
        let handle = DirectoryHandle(path: path, fd: fd)
        let st = try Sys.fstat(fd, path: path)
        guard st.st_uid == Sys.effectiveUser() else {
            throw AppGroupError.unsafePath(path: path, problem: "the directory belongs to user \(st.st_uid), not to this process's user \(Sys.effectiveUser()); another user could replace what it holds. Remove it, or run as its owner")
        }
        if st.st_mode & 0o077 != 0 {
            // Our own directory, made by an older version or under a loose umask.
            try Sys.fchmod(fd, Sys.directoryMode, path: path)
        }
        return handle
    }

    private func pathOf(_ name: String) -> String { path + "/" + name }

    /// The identity of the regular file `name`, nil when absent.
    /// - Throws: for a symbolic link or another kind of file standing there.
    package func identity(of name: String) throws -> AtomicFile.Identity? {
        guard let st = try Sys.lstatat(fd, name, path: pathOf(name)) else { return nil }
        try Self.requireRegular(st, path: pathOf(name))
        return AtomicFile.Identity(st)
    }

    /// Reads the regular file `name` (not over `limit` bytes) with the identity of
    /// the inode read; nil when absent.
    package func read(_ name: String, limit: Int64) throws -> (data: Data, identity: AtomicFile.Identity)? {
        let path = pathOf(name)
        let file: Int32
        do {
            file = try Sys.openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, path: path)
        } catch AppGroupError.systemCall(_, _, let code) where code == ENOENT {
            return nil
        } catch AppGroupError.systemCall(_, _, let code) where code == ELOOP {
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
        let target = pathOf(name)
        if let st = try Sys.lstatat(fd, name, path: target) { try Self.requireRegular(st, path: target) }
        var temporary = ""
        var file: Int32 = -1
        while file < 0 {
            temporary = AtomicFile.temporaryPrefix(for: name) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            do {
                file = try Sys.openat(fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, path: pathOf(temporary))
            } catch AppGroupError.systemCall(_, _, let code) where code == EEXIST {
                continue
            }
        }
        var done = false
        defer { if !done { _ = try? Sys.unlinkat(fd, temporary, path: pathOf(temporary)) } }
        do {
            // O_CREAT applied the umask: the copy of the secrets is 0600 whatever it is.
            try Sys.fchmod(file, Sys.fileMode, path: pathOf(temporary))
            try data.withUnsafeBytes { try Sys.writeAll(file, $0, path: pathOf(temporary)) }
            if durable { try Sys.fsync(file, path: pathOf(temporary)) }
        } catch {
            Sys.close(file)
            throw error
        }
        Sys.close(file)
        try Sys.renameat(fd, temporary, to: name, path: target)
        done = true
        if durable {
            do {
                try Sys.fsync(fd, path: path)
            } catch AppGroupError.systemCall(let operation, let directory, let code) {
                throw AppGroupError.notDurable(path: target, operation: "\(operation)(\(directory))", errno: code)
            }
        }
    }

    /// Removes the file `name`; false when it was not there.
    @discardableResult
    package func remove(_ name: String, durable: Bool = true) throws -> Bool {
        let removed = try Sys.unlinkat(fd, name, path: pathOf(name))
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
        _ = try? Sys.forEachEntry(in: path) { entry in
            guard entry.hasPrefix(prefix) else { return }
            let parts = entry.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else { return }
            if !holdingWriteLock {
                guard let pid = pid_t(parts[0]), !Sys.processExists(pid),
                      let st = try? Sys.lstatat(fd, entry, path: pathOf(entry)) else { return }
                #if canImport(Darwin)
                let modified = Double(st.st_mtimespec.tv_sec)
                #else
                let modified = Double(st.st_mtim.tv_sec)
                #endif
                guard Date().timeIntervalSince1970 - modified >= 1 else { return }
            }
            stale.append(entry)
        }
        return stale.filter { (try? Sys.unlinkat(fd, $0, path: pathOf($0))) == true }.count
    }

    private static func requireRegular(_ st: Sys.FileStatus, path: String) throws {
        guard Sys.isRegular(st) else {
            if Sys.isSymlink(st) { throw AppGroupError.unsafePath(path: path, problem: "a symbolic link stands where the file belongs; it was not followed, remove it") }
            throw AppGroupError.notARegularFile(path: path, kind: Sys.fileKind(st.st_mode))
        }
    }
}
