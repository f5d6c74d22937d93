import AppGroupSystem
import Foundation

/// File-system primitives for the modules above the container (the share inbox):
/// each goes through the package's system-call layer (fault injection, EINTR
/// retries), so that a module above never calls rename, link or unlink itself and
/// never sees an errno. Failures are ``AppGroupError``s; the predicates below
/// (``isMissing(_:)``, ``isNameTaken(_:)``, ``isSymbolicLink(_:)``) answer what a
/// caller needs to know about one.
package enum FileOperations {
    /// What lstat(2) says about an entry, without the C structure.
    package struct Status: Sendable {
        /// A regular file.
        package let isRegular: Bool
        /// A directory.
        package let isDirectory: Bool
        /// A symbolic link (lstat never follows one).
        package let isSymbolicLink: Bool
        /// "regular file", "directory", "symbolic link", "FIFO"...: for messages
        /// (made on demand: most callers never need it).
        package var kind: String { SystemCalls.fileKind(mode) }
        private let mode: mode_t
        /// The size in bytes.
        package let size: Int64
        /// The last modification, in seconds since 1970.
        package let modified: TimeInterval

        init(_ st: SystemCalls.FileStatus) {
            isRegular = SystemCalls.isRegular(st)
            isDirectory = SystemCalls.isDirectory(st)
            isSymbolicLink = SystemCalls.isSymlink(st)
            mode = st.st_mode
            size = Int64(st.st_size)
            modified = SystemCalls.modified(st)
        }
    }

    /// lstat(2) of `path` (a link is described, never followed); nil when nothing is there.
    package static func status(_ path: String) throws(AppGroupError) -> Status? {
        try fromSystem(SystemCalls.lstat(path)).map(Status.init)
    }

    /// What stands at `path`: whether it is a regular file, and its kind for a
    /// message; nil when nothing is there. An lstat(2) without the timestamps, for
    /// a file that is written in place next (see ``SystemCalls/lstatUntimed(at:_:path:)``).
    package static func kind(at path: String) throws(AppGroupError) -> (isRegular: Bool, kind: String)? {
        try fromSystem(SystemCalls.lstatUntimed(at: AT_FDCWD, path, path: path)).map { (SystemCalls.isRegular($0), SystemCalls.fileKind($0.st_mode)) }
    }

    /// readlink(2): the target of the symbolic link at `path`, as stored.
    package static func linkTarget(_ path: String) throws(AppGroupError) -> String { try fromSystem(SystemCalls.linkTarget(path)) }

    /// The errno of a failed system call, nil for any other error.
    package static func errno(of error: any Error) -> Errno? { errorCode(error) }

    /// mkdir(2), mode 0700; false when something is there already.
    @discardableResult
    package static func makeDirectory(_ path: String) throws(AppGroupError) -> Bool { try fromSystem(SystemCalls.makeDirectory(path)) }

    /// rmdir(2); false when already gone. Throws for a directory that is not empty.
    @discardableResult
    package static func removeDirectory(_ path: String) throws(AppGroupError) -> Bool { try fromSystem(SystemCalls.rmdir(path)) }

    /// unlink(2) of a file or link; false when already gone.
    @discardableResult
    package static func removeFile(_ path: String) throws(AppGroupError) -> Bool { try fromSystem(SystemCalls.unlink(path)) }

    /// rename(2): `target` is replaced when it is a file or an empty directory; use
    /// ``moveWithoutReplacing(_:to:)`` where that must not happen.
    package static func rename(_ source: String, to target: String) throws(AppGroupError) { try fromSystem(SystemCalls.rename(source, to: target)) }

    /// Calls `body` with each name in the directory `path` (not "." and ".."), one
    /// at a time, so a huge directory takes constant memory. Returns false when
    /// the directory is missing.
    @discardableResult
    package static func forEachEntry(in path: String, _ body: (String) throws -> Void) throws -> Bool {
        try mappingSystemErrors { try SystemCalls.forEachEntry(in: path, body) }
    }

    /// fsync(2) of the directory `path`, so that names changed in it survive a crash.
    package static func syncDirectory(_ path: String) throws(AppGroupError) { try AtomicFile.syncDirectory(path) }

    /// ``syncDirectory(_:)`` after `changed` was linked or renamed into `path`: a
    /// failure is then ``AppGroupError/notDurable(path:operation:errno:)``.
    package static func syncDirectory(_ path: String, afterChanging changed: String) throws(AppGroupError) {
        try AtomicFile.syncDirectory(path, afterChanging: changed)
    }

    /// How many descriptors the process may have open now (its soft RLIMIT_NOFILE),
    /// for a reader that keeps files open to size its share.
    package static func openFileLimit() -> UInt64 { SystemCalls.openFileLimit }

    /// Creates `url` and any missing parents; the last component must end up a
    /// directory of this user that no one else may write (see ``ContainerResolver``).
    package static func makeTrustedDirectory(_ url: URL) throws(AppGroupError) { try ContainerResolver.makeRoot(url) }

    // MARK: What an error means

    /// True when `error` says nothing was at the path (ENOENT).
    package static func isMissing(_ error: any Error) -> Bool { errorCode(error) == .ENOENT }

    /// True when `error` is what link(2) or rename(2) answer when the new name is
    /// taken (see ``moveWithoutReplacing(_:to:)``).
    package static func isNameTaken(_ error: any Error) -> Bool { errorCode(error).map(SystemCalls.isNameTaken) ?? false }

    /// True when `error` says a symbolic link stood where a file was opened (ELOOP
    /// under O_NOFOLLOW).
    package static func isSymbolicLink(_ error: any Error) -> Bool { errorCode(error) == .ELOOP }

    private static func errorCode(_ error: any Error) -> Errno? {
        guard case let AppGroupError.systemCall(_, _, code)? = error as? AppGroupError else { return nil }
        return code
    }

    /// A name-taken error for `path`, as link(2) would throw it.
    package static func nameTakenError(_ path: String, operation: String) -> AppGroupError {
        AppGroupError.systemCall(operation: operation, path: path, errno: .EEXIST)
    }
}
