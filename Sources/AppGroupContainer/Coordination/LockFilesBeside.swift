import Foundation

/// Directories of the package's own stores whose items keep their lock files
/// beside them, `<dir>/.<name>.lock`, instead of in the coordination tree: a share
/// inbox's `Claims/`, where a drain's session lock must be found by listing the
/// directory (a drain killed before making its session directory leaves only its
/// lock file, and the next drain removes it: ShareInbox's TheShareInbox article).
/// No user's code lists these directories; only the store's own code and its
/// recovery open those lock files.
///
/// A store registers its directory in every process that opens the store, before
/// it coordinates an item there, so every participant agrees on the lock file.
package enum LockFilesBeside {
    private static let directories = Locked<Set<ExactPath>>([])

    /// Items directly inside `directory` (absolute, standardized) keep their lock files beside them.
    package static func register(_ directory: URL) {
        let path = directory.standardizedFileURL.path
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        directories.withLock { _ = $0.insert(ExactPath(trimmed)) }
    }

    static func isRegistered(_ directory: String) -> Bool {
        let key = ExactPath(directory)
        return directories.withLock { $0.isEmpty ? false : $0.contains(key) }
    }
}
