import Foundation

extension AtomicFile {
    /// Renames `source` to `destination` in the same directory, refusing to replace
    /// anything already at `destination`. Used to keep a damaged file aside, where a
    /// person can recover it, before a fresh one is saved in its place.
    ///
    /// The check and the rename are two steps: callers hold a ``FileCoordinator``
    /// write coordination on the item, so no cooperating writer races them.
    /// - Parameter durable: fsync the directory afterwards, so the move survives a crash.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` when `destination` exists;
    ///   file-system errors.
    public static func move(_ source: URL, to destination: URL, durable: Bool = true) throws {
        if try Sys.lstat(destination.path) != nil {
            throw AppGroupError.unsafePath(path: destination.path, problem: "something already stands there; it was not replaced")
        }
        try Sys.rename(source.path, to: destination.path)
        if durable { try syncDirectory(destination.deletingLastPathComponent().path) }
    }
}
