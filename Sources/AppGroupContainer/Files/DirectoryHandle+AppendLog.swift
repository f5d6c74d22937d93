import AppGroupSystem
import Foundation

// What an append-only log kept in a directory needs (the share inbox's journal):
// a log created under a fresh name and appended to (with O_APPEND, or at its
// position over blocks written ahead), read back at
// offsets, flushed with fdatasync, its name checked against the open inode, and
// the directory listed and changed, every name resolved against the descriptor.
extension DirectoryHandle {
    /// Creates the new file `name` (refusing anything there, mode 0600 whatever
    /// the umask) open to append only (O_APPEND: every write lands at the end).
    /// - Throws: an error for which ``FileOperations/isNameTaken(_:)`` is true when
    ///   the name is in use; file-system errors.
    package func createAppendOnlyFile(_ name: String) throws(AppGroupError) -> OpenFile {
        let path = pathOf(name)
        let fd = try fromSystem(SystemCalls.open(at: self.fd, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode, path: path))
        try? SystemCalls.fchmod(fd, SystemCalls.fileMode, path: path) // O_CREAT applied the umask
        return OpenFile(fd: fd, path: path, size: 0)
    }

    /// Creates the new file `name` (refusing anything there, mode 0600 whatever
    /// the umask) open to read and write at its position (no O_APPEND), for a log
    /// written in place over blocks it allocated ahead (the share inbox's durable
    /// journal: an fdatasync that changes no size writes no inode).
    /// - Throws: an error for which ``FileOperations/isNameTaken(_:)`` is true when
    ///   the name is in use; file-system errors.
    package func createFileForWriting(_ name: String) throws(AppGroupError) -> OpenFile {
        let path = pathOf(name)
        let fd = try fromSystem(SystemCalls.open(at: self.fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode, path: path))
        try? SystemCalls.fchmod(fd, SystemCalls.fileMode, path: path) // O_CREAT applied the umask
        return OpenFile(fd: fd, path: path, size: 0)
    }

    /// Opens the existing regular file `name` to read (or, with `writing`, to read
    /// and write, as taking its exclusive lock needs), never following a link and
    /// never blocking on a FIFO; nil when nothing has that name.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a symbolic link,
    ///   ``AppGroupError/notARegularFile(path:kind:)`` for a FIFO, a directory...
    package func openExistingFile(_ name: String, writing: Bool = false) throws(AppGroupError) -> OpenFile? {
        let path = pathOf(name)
        let fd: Int32
        do {
            fd = try SystemCalls.open(at: self.fd, name, (writing ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK, path: path)
        } catch .call(_, _, let code) where code == .ENOENT {
            return nil
        } catch .call(_, _, let code) where code == .ELOOP {
            throw .unsafePath(path: path, problem: "a symbolic link stands where a file belongs; it was not followed")
        } catch {
            throw AppGroupError(error)
        }
        return try OpenFile.checked(fd, path: path)
    }

    /// Calls `body` with each entry's name (not "." or ".."), in directory order.
    /// Each call lists from the start: the listing reads through a descriptor of
    /// its own (a duplicate of this one would share its position, and a second
    /// listing would find nothing).
    package func forEachEntry(_ body: (String) throws -> Void) throws {
        let own = try fromSystem(SystemCalls.open(at: fd, ".", O_RDONLY | O_DIRECTORY, path: path))
        defer { SystemCalls.close(own) }
        try mappingSystemErrors { try SystemCalls.forEachEntry(at: own, path: path, body) }
    }

    /// True when something (of any kind, a link not followed) has the name
    /// `relative` (which may go through subdirectories) below this directory.
    package func hasEntry(_ relative: String) throws(AppGroupError) -> Bool {
        try fromSystem(SystemCalls.lstat(at: fd, relative, path: pathOf(relative))) != nil
    }

    /// fsync(2) of this directory: the names created or removed in it survive a crash.
    package func sync() throws(AppGroupError) { try fromSystem(SystemCalls.fsync(fd, path: path)) }
}

extension OpenFile {
    /// The device and inode of the open file, and its size now: an fstat(2)
    /// without the timestamps, so that a write after it keeps a coarse time
    /// (``SystemCalls/fstatUntimed(_:path:)``).
    package func currentIdentity() throws(AppGroupError) -> InodeIdentity {
        InodeIdentity(try fromSystem(SystemCalls.fstatUntimed(fd, path: path)))
    }

    /// Up to `count` bytes at `offset` (pread(2), repeated until `count` or the end
    /// of the file).
    package func read(_ count: Int, at offset: Int64) throws(AppGroupError) -> Data {
        var data = Data(count: count)
        let outcome = data.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) -> Int in try SystemCalls.readAll(fd, into: raw, at: offset, path: path) }
        }
        data.count = try fromSystem(outcome.get())
        return data
    }

    /// fdatasync(2): the data written, and the size, reach the disk (not the timestamps).
    package func syncData() throws(AppGroupError) { try fromSystem(SystemCalls.fdatasync(fd, path: path)) }
}
