import AppGroupSystem
import Foundation

/// A directory of a tree that a sandboxed target may write (its data container, a
/// group container, a share request's folder), held open by its descriptor, so
/// that the process driving the device (the test process, which no sandbox
/// confines) never resolves a path a target could have swapped.
///
/// It is reached by a walk from a directory no target may write (the device's own
/// folder, or a container root: trusted as configured), one component at a time
/// with `openat(O_DIRECTORY|O_NOFOLLOW)` (``ContainedDirectory``). Every later
/// access names one entry relative to the descriptor and follows no link:
/// `openat(O_NOFOLLOW)`, `mkdirat`, `unlinkat`, `renameat`. A folder swapped for a
/// link after the walk is seen as the link it is, and never entered.
package final class HeldDirectory: @unchecked Sendable {
    // @unchecked: the descriptor is only read after init; closing it is deinit's.

    /// The open directory.
    package let fd: Int32
    /// Its path, for messages only: never resolved again.
    package let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { SystemCalls.close(fd) }

    /// Opens the directory at the absolute, standardized `path`, walking down from
    /// `trusted` (which it equals or lies below) without following a link below it.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a link or a
    ///   non-directory on the way, or a `path` outside `trusted`;
    ///   ``AppGroupError/systemCall(operation:path:errno:)`` (ENOENT when missing).
    package static func open(_ path: String, below trusted: String) throws(AppGroupError) -> HeldDirectory {
        guard path == trusted || ContainedDirectory.holds(trusted, path) else {
            throw .unsafePath(path: path, problem: "it is not below \(trusted), where the device walks from")
        }
        let directory = try fromSystem(ContainedDirectory.open(path, below: path == trusted ? nil : trusted))
        return HeldDirectory(fd: directory.fd, path: path)
    }

    /// The directory `name` in this one, nil when nothing is there.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` when a link or
    ///   another kind of file stands there (it is not followed).
    package func directory(_ name: String) throws(AppGroupError) -> HeldDirectory? {
        let component = try Self.component(name, in: path)
        let child = path(of: name)
        do {
            return HeldDirectory(fd: try SystemCalls.openDirectory(component, in: fd, path: child), path: child)
        } catch .call(_, _, let code) where code == .ENOENT {
            return nil
        } catch .call(_, _, let code) where code == .ELOOP || code == .ENOTDIR {
            let kind = (try? SystemCalls.lstat(component, in: fd, path: child)).flatMap { $0 }.map { SystemCalls.fileKind($0.st_mode) } ?? "file"
            throw .unsafePath(path: child, problem: "a \(kind) stands where a directory belongs; it was not followed")
        } catch {
            throw AppGroupError(error)
        }
    }

    /// The directory `name` in this one, made (`mode`) when missing; an existing
    /// directory is used as it is.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` when a link or another
    ///   kind of file stands there.
    package func makeDirectory(_ name: String, mode: mode_t = SystemCalls.directoryMode) throws(AppGroupError) -> HeldDirectory {
        let component = try Self.component(name, in: path)
        if try fromSystem(SystemCalls.makeDirectory(component, in: fd, mode: mode, path: path(of: name))) {
            // mkdirat applied the umask; the mode asked for is the mode wanted.
            if let made = try directory(name) {
                try fromSystem(SystemCalls.fchmod(made.fd, mode, path: made.path))
                return made
            }
        }
        guard let existing = try directory(name) else {
            throw .systemCall(operation: "mkdirat", path: path(of: name), errno: .ENOENT)
        }
        return existing
    }

    /// Writes `data` to the new regular file `name` (0600; created, never opened if
    /// it exists, never through a link).
    package func write(_ data: Data, toNewFile name: String) throws(AppGroupError) {
        let file = try createFile(name)
        defer { SystemCalls.close(file) }
        try fromSystem(SystemCalls.writeAll(file, data, path: path(of: name)))
    }

    /// Copies the regular file at `source` (a path the caller chose, outside every
    /// target's reach) to the new file `name`, at most `limit` bytes.
    /// - Throws: ``AppGroupError/notARegularFile(path:kind:)`` when `source` is
    ///   not a regular file (a FIFO is refused before anything is read),
    ///   ``AppGroupError/fileTooLarge(path:size:limit:)`` past `limit`.
    package func copyFile(at source: String, toNewFile name: String, limit: Int64 = .max) throws(AppGroupError) {
        let input = try fromSystem(SystemCalls.open(source, O_RDONLY | O_NONBLOCK))
        defer { SystemCalls.close(input) }
        let status = try fromSystem(SystemCalls.fstat(input, path: source))
        guard SystemCalls.isRegular(status) else { throw .notARegularFile(path: source, kind: SystemCalls.fileKind(status.st_mode)) }
        let output = try createFile(name)
        defer { SystemCalls.close(output) }
        try fromSystem(SystemCalls.copyContents(from: input, sourcePath: source, to: output, destinationPath: path(of: name), limit: limit))
    }

    /// Creates the new regular file `name` (0600, O_EXCL|O_NOFOLLOW) and returns its descriptor.
    package func createFile(_ name: String) throws(AppGroupError) -> Int32 {
        let component = String(decoding: try Self.component(name, in: path).dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return try fromSystem(SystemCalls.open(at: fd, component, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode, path: path(of: name)))
    }

    /// The path of `name` in this directory, for messages.
    package func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// `name` as one path component (raw bytes with a NUL).
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for an empty name, `.`,
    ///   `..`, or a name holding `/` or NUL.
    static func component(_ name: String, in directory: String) throws(AppGroupError) -> [CChar] {
        if name.isEmpty || name == "." || name == ".." || name.utf8.contains(UInt8(ascii: "/")) || name.utf8.contains(0) {
            throw .unsafePath(path: directory + "/" + name, problem: "\(name.isEmpty ? "an empty name" : "'\(name)'") is not one file name")
        }
        return SystemCalls.component(name)
    }
}
