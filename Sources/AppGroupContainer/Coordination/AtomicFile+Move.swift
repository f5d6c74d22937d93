import Foundation
import AppGroupSystem

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
    package static func move(_ source: URL, to destination: URL, below root: ContainerRoot?, durable: Bool = true) throws(AppGroupError) {
        let from = source.standardizedFileURL
        let to = destination.standardizedFileURL
        guard ExactPath.same(from.deletingLastPathComponent().path, to.deletingLastPathComponent().path) else {
            throw .unsafePath(path: to.path, problem: "AtomicFile.move renames within one directory; \(from.path) is elsewhere")
        }
        let directory = try fromSystem(ContainedDirectory.open(to.deletingLastPathComponent().path, below: root?.path))
        defer { directory.close() }
        if try fromSystem(SystemCalls.lstat(at: directory.fd, to.lastPathComponent, path: to.path)) != nil {
            throw .unsafePath(path: to.path, problem: "something already stands there; it was not replaced")
        }
        try fromSystem(SystemCalls.rename(at: directory.fd, from.lastPathComponent, to: to.lastPathComponent, path: to.path))
        if durable { try fromSystem(SystemCalls.fsync(directory.fd, path: directory.path)) }
    }
}
