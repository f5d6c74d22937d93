import AppGroupSystem
import Foundation

/// Reading what a target wrote: regular files only, size-bounded, no link
/// followed, nothing that could block (a FIFO, a device) ever read.
extension HeldDirectory {
    /// An open regular file a target wrote, checked before anything is read.
    package struct RegularFile: ~Copyable {
        package let fd: Int32
        package let path: String
        /// Its size when it was checked.
        package let size: Int64

        deinit { SystemCalls.close(fd) }
    }

    /// Opens the regular file at `relative` below this directory: one or more
    /// names separated by `/`, none of them empty, `.` or `..`, and none a
    /// symbolic link (a walk with `openat(O_DIRECTORY|O_NOFOLLOW)` at every step,
    /// relative to the directory before). The file is
    /// looked at before it is opened (only a regular file is opened, with
    /// O_NOFOLLOW|O_NONBLOCK, so a FIFO swapped in meanwhile cannot block the open),
    /// and checked again with fstat on the descriptor: a regular file, one link
    /// (not a second name of a file elsewhere), at most `limit` bytes.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a name that leaves
    ///   the directory or a link on the way, ``AppGroupError/notARegularFile(path:kind:)``
    ///   for anything but a regular file, ``AppGroupError/fileTooLarge(path:size:limit:)``
    ///   past `limit`, ``AppGroupError/systemCall(operation:path:errno:)`` (ENOENT when missing).
    package func openRegularFile(_ relative: String, limit: Int64) throws(AppGroupError) -> RegularFile {
        let names = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let full = path(of: relative)
        guard !relative.hasPrefix("/"), let last = names.last else {
            throw .unsafePath(path: relative, problem: "an absolute path; a returned file is named relative to its folder, \(path)")
        }
        var directory = self
        for name in names.dropLast() {
            guard let next = try directory.directory(name) else { throw .systemCall(operation: "openat", path: full, errno: .ENOENT) }
            directory = next
        }
        let component = try Self.component(last, in: directory.path)
        guard let seen = try fromSystem(SystemCalls.lstat(component, in: directory.fd, path: full)) else {
            throw .systemCall(operation: "fstatat", path: full, errno: .ENOENT)
        }
        try Self.require(seen, path: full, limit: limit)
        let fd = try fromSystem(SystemCalls.open(at: directory.fd, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, path: full))
        let status: SystemCalls.FileStatus
        do {
            status = try fromSystem(SystemCalls.fstat(fd, path: full))
            try Self.require(status, path: full, limit: limit)
        } catch {
            SystemCalls.close(fd)
            throw error
        }
        return RegularFile(fd: fd, path: full, size: Int64(status.st_size))
    }

    /// Copies the regular file at `relative` below this directory (see
    /// ``openRegularFile(_:limit:)``) to the new file `name` in `destination`,
    /// reading at most `limit` bytes (a file that grows past it while it is copied
    /// is refused too). Returns the bytes copied.
    @discardableResult
    package func copyRegularFile(_ relative: String, limit: Int64, to destination: HeldDirectory, as name: String) throws(AppGroupError) -> Int64 {
        let file = try openRegularFile(relative, limit: limit)
        let output = try destination.createFile(name)
        defer { SystemCalls.close(output) }
        return try fromSystem(SystemCalls.copyContents(from: file.fd, sourcePath: file.path, to: output, destinationPath: destination.path(of: name), limit: limit))
    }

    /// Reads the regular file at `relative` (see ``openRegularFile(_:limit:)``),
    /// at most `limit` bytes.
    package func readRegularFile(_ relative: String, limit: Int64) throws(AppGroupError) -> Data {
        let file = try openRegularFile(relative, limit: limit)
        return try fromSystem(SystemCalls.readAll(file.fd, path: file.path, sizeHint: Int(file.size), limit: limit))
    }

    private static func require(_ status: SystemCalls.FileStatus, path: String, limit: Int64) throws(AppGroupError) {
        guard SystemCalls.isRegular(status) else { throw .notARegularFile(path: path, kind: SystemCalls.fileKind(status.st_mode)) }
        guard status.st_nlink <= 1 else {
            throw .unsafePath(path: path, problem: "the file has \(status.st_nlink) names (hard links): it may be another file's second name, so it is not read")
        }
        guard Int64(status.st_size) <= limit else { throw .fileTooLarge(path: path, size: Int64(status.st_size), limit: limit) }
    }
}
