import Foundation

extension AtomicFile {
    /// Renames `source` to `destination` in the same directory (reached without
    /// following a link below the container root), refusing to replace
    /// anything already at `destination`. Used to keep a damaged file aside, where a
    /// person can recover it, before a fresh one is saved in its place.
    ///
    /// The check and the rename are two steps: callers hold a ``FileCoordinator``
    /// write coordination on the item, so no cooperating writer races them.
    /// - Parameter durable: fsync the directory afterwards, so the move survives a crash.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` when `destination` exists;
    ///   file-system errors.
    package static func move(_ source: URL, to destination: URL, durable: Bool = true) throws {
        let from = source.standardizedFileURL
        let to = destination.standardizedFileURL
        guard ExactPath.same(from.deletingLastPathComponent().path, to.deletingLastPathComponent().path) else {
            throw AppGroupError.unsafePath(path: to.path, problem: "AtomicFile.move renames within one directory; \(from.path) is elsewhere")
        }
        let directory = try ContainedDirectory.open(to.deletingLastPathComponent().path)
        defer { directory.close() }
        if try Sys.lstat(at: directory.fd, to.lastPathComponent, path: to.path) != nil {
            throw AppGroupError.unsafePath(path: to.path, problem: "something already stands there; it was not replaced")
        }
        try Sys.rename(at: directory.fd, from.lastPathComponent, to: to.lastPathComponent, path: to.path)
        if durable { try Sys.fsync(directory.fd, path: directory.path) }
    }
}
