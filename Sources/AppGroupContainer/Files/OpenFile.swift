import AppGroupSystem
import Foundation

/// An open regular file for the modules above the container: the descriptor stays
/// inside this module, so a caller reads, writes and syncs only through these
/// methods (each a call of the package's system-call layer). Close it with
/// ``close()`` exactly once.
package struct OpenFile: Sendable {
    let fd: Int32
    /// The path it was opened by, for messages.
    package let path: String
    /// Its size when opened.
    package let size: Int64

    /// Opens the regular file at `path` to read, never following a link (an error
    /// for which ``FileOperations/isSymbolicLink(_:)`` is true) and never blocking
    /// on a FIFO. Throws ``AppGroupError/notARegularFile(path:kind:)`` for anything
    /// else (a directory, a FIFO...).
    package static func openForReading(_ path: String) throws(AppGroupError) -> OpenFile {
        try checked(fromSystem(SystemCalls.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)), path: path)
    }

    /// Opens the regular file at `path` to read and write, creating it (mode 0600)
    /// when missing and setting its mode back to 0600 when it was changed.
    package static func openOrCreate(_ path: String) throws(AppGroupError) -> OpenFile {
        try checked(fromSystem(SystemCalls.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: SystemCalls.fileMode)), path: path, restoringMode: true)
    }

    /// Creates a new file at `path` to write, mode 0600 whatever the umask,
    /// refusing anything already there (an error for which
    /// ``FileOperations/isNameTaken(_:)`` is true).
    package static func createNew(_ path: String) throws(AppGroupError) -> OpenFile {
        let fd = try fromSystem(SystemCalls.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode))
        try? SystemCalls.fchmod(fd, SystemCalls.fileMode, path: path)
        return OpenFile(fd: fd, path: path, size: 0)
    }

    static func checked(_ fd: Int32, path: String, restoringMode: Bool = false) throws(AppGroupError) -> OpenFile {
        do throws(AppGroupError) {
            // Without the times: the file may be written next (the share queue's
            // sequence file, a cursor), and a stat that reads them makes that write dirty the inode.
            let st = try fromSystem(SystemCalls.fstatUntimed(fd, path: path))
            guard SystemCalls.isRegular(st) else { throw .notARegularFile(path: path, kind: SystemCalls.fileKind(st.st_mode)) }
            if restoringMode && st.st_mode & 0o777 != SystemCalls.fileMode { try fromSystem(SystemCalls.fchmod(fd, SystemCalls.fileMode, path: path)) }
            return OpenFile(fd: fd, path: path, size: Int64(st.st_size))
        } catch {
            SystemCalls.close(fd)
            throw error
        }
    }

    /// Closes the descriptor.
    package func close() { SystemCalls.close(fd) }

    /// Up to `count` bytes from the start of the file (fewer at its end or on an
    /// error): a bounded read whatever the file's length.
    package func readPrefix(_ count: Int) -> Data {
        var data = Data(count: count)
        var length = 0
        data.withUnsafeMutableBytes { raw in
            while length < raw.count {
                let n = SystemCalls.readAvailable(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[length...]))
                if n <= 0 { break }
                length += n
            }
        }
        data.count = length
        return data
    }

    /// Writes all of `data` at the current position.
    package func write(_ data: Data) throws(AppGroupError) {
        try fromSystem(SystemCalls.writeAll(fd, data, path: path))
    }

    /// Writes all of `data` at `offset` (pwrite(2)), leaving the position alone.
    package func write(_ data: Data, at offset: Int64) throws(AppGroupError) {
        try fromSystem(SystemCalls.writeAll(fd, data, at: offset, path: path))
    }

    /// fsync(2).
    package func sync() throws(AppGroupError) { try fromSystem(SystemCalls.fsync(fd, path: path)) }

    /// Copies `source` from its current position to its end into this file, in
    /// chunks (constant memory); returns the byte count copied.
    package func copy(from source: OpenFile) throws(AppGroupError) -> Int64 {
        try fromSystem(SystemCalls.copyContents(from: source.fd, sourcePath: source.path, to: fd, destinationPath: path))
    }

    /// Creates the file `path` (refusing anything there) holding `data`, fsynced
    /// when `durable`.
    package static func writeNew(_ path: String, _ data: Data, durable: Bool) throws(AppGroupError) {
        let file = try createNew(path)
        defer { file.close() }
        try file.write(data)
        if durable { try file.sync() }
    }
}
