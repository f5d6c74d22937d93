import AppGroupSystem
import Foundation

// What a queue that publishes files into a directory needs (the share inbox): a
// file created under a private name, then given its public name in one step that
// never replaces anything, with every name resolved against the directory's
// descriptor, so one walk from the container root serves a whole publication.
extension DirectoryHandle {
    /// Opens the subdirectory `name` without following a link, checked as
    /// ``open(_:below:)`` checks (this user's, mode 0700).
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a link or a
    ///   non-directory standing there; file-system errors (ENOENT when missing).
    package func openDirectory(_ name: String) throws(AppGroupError) -> DirectoryHandle {
        let path = pathOf(name)
        let fd: Int32
        do {
            fd = try SystemCalls.open(at: self.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: path)
        } catch .call(_, _, let code) where code == .ELOOP || code == .ENOTDIR {
            throw .unsafePath(path: path, problem: "a symbolic link or a file stands where a directory belongs; it was not followed and nothing was written. Remove it")
        } catch {
            throw AppGroupError(error)
        }
        return try Self.checked(DirectoryHandle(ContainedDirectory(fd: fd, path: path)))
    }

    /// Creates a new file named `prefix` + `<pid>-<random>` (mode 0600 whatever the
    /// umask) and returns its name and the file, open to write.
    package func createUniqueFile(prefix: String) throws(AppGroupError) -> (name: String, file: OpenFile) {
        while true {
            let name = prefix + "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
            let path = pathOf(name)
            do {
                let fd = try SystemCalls.open(at: self.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode, path: path)
                // O_CREAT applied the umask.
                try? SystemCalls.fchmod(fd, SystemCalls.fileMode, path: path)
                return (name, OpenFile(fd: fd, path: path, size: 0))
            } catch .call(_, _, let code) where code == .EEXIST {
                continue
            } catch {
                throw AppGroupError(error)
            }
        }
    }

    /// Opens the regular file `name` to read and write, creating it (0600) when
    /// missing, as ``OpenFile/openOrCreate(_:)`` does by path.
    package func openOrCreateFile(_ name: String) throws(AppGroupError) -> OpenFile {
        let path = pathOf(name)
        let fd = try fromSystem(SystemCalls.open(at: fd, name, O_RDWR | O_CREAT | O_NOFOLLOW, mode: SystemCalls.fileMode, path: path))
        return try OpenFile.checked(fd, path: path, restoringMode: true)
    }

    /// Gives the entry `from` the name `to` in this directory in one step, never
    /// replacing what is there: renameat2 with RENAME_NOREPLACE, or, where the file
    /// system cannot, linkat then unlinkat (a file only; once linked, `from` may
    /// stay as a second name if the unlink fails). Throws an error for which
    /// ``FileOperations/isNameTaken(_:)`` is true when `to` is in use, and one for
    /// which ``FileOperations/isMissing(_:)`` is true when `from` is gone.
    package func moveWithoutReplacing(_ from: String, to: String) throws(AppGroupError) {
        let path = pathOf(to)
        switch try fromSystem(SystemCalls.renameWithoutReplacing(at: fd, from, to: to, path: path)) {
        case .moved:
            return
        case .unsupported:
            try fromSystem(SystemCalls.link(at: fd, from, to: to, path: path))
            // The link made the move: an unlink that fails now leaves `from` a second
            // name of the same file, not an error (a throw would tell the caller that
            // nothing was published, and the item would be published twice).
            _ = try? SystemCalls.unlink(at: fd, from, path: pathOf(from))
        }
    }

    /// fsync(2) of this directory after `changed` got its name in it: a failure is
    /// then ``AppGroupError/notDurable(path:operation:errno:)``, never an error that
    /// would let a caller believe nothing changed.
    package func sync(afterChanging changed: String) throws(AppGroupError) {
        try AtomicFile.syncDirectory(directory, afterChanging: changed)
    }
}

extension OpenFile {
    /// Up to `count` bytes from the start of the file, in one pread(2): the whole
    /// of a shorter file that nobody writes meanwhile (a short read of a regular
    /// file is its end). Empty on an error.
    package func readStart(upTo count: Int) -> Data {
        var data = Data(count: count)
        let n = data.withUnsafeMutableBytes { raw in (try? SystemCalls.pread(fd, into: raw, at: 0, path: path)) ?? 0 }
        data.count = n
        return data
    }

    /// Takes an exclusive lock owned by this open file description (released when
    /// the descriptor is closed, by the process's death too) if
    /// no one holds one, without waiting; false when another holds it.
    /// - Throws: `AppGroupError.systemCall` when the lock cannot be taken for
    ///   another reason (ENOLCK, EIO...): a caller that tried again would loop.
    package func tryLockExclusively() throws(AppGroupError) -> Bool {
        while true {
            guard let code = SystemCalls.lock(fd, FileLock.Mode.exclusive.rawValue, wait: false, path: path) else { return true }
            if code == .EINTR { continue }
            if code == .EAGAIN || code == .EACCES || code == .EWOULDBLOCK { return false }
            throw .systemCall(operation: "fcntl(F_OFD_SETLK)", path: path, errno: code)
        }
    }

    /// Lets go of the lock ``tryLockExclusively()`` took (nothing when none was
    /// taken), then closes the descriptor. Closing alone does not let it go at
    /// once: the lock belongs to the open file description, and a child forked
    /// meanwhile by any thread of the process (a spawn, until its exec) holds a
    /// copy of the descriptor, so the lock would stay until the child lets go.
    package func unlockAndClose() {
        SystemCalls.unlockAndClose(fd, path: path)
    }

    /// How many names the file has now (0 once it was unlinked).
    package func linkCount() throws(AppGroupError) -> Int { Int(try fromSystem(SystemCalls.fstatUntimed(fd, path: path)).st_nlink) }

    /// Opens the regular file at `path` to write, never following a link and never
    /// blocking on a FIFO, without creating it: for taking its lock.
    package static func openExisting(_ path: String) throws(AppGroupError) -> OpenFile {
        try checked(fromSystem(SystemCalls.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK)), path: path)
    }
}
