import Foundation

/// Moves that never replace what is at the new name: rename(2) replaces a file
/// silently, so a file gets its new name by link(2), which refuses a taken name.
extension FileOperations {
    /// Gives the entry at `source` the name `target` without replacing anything
    /// there, and leaves `source` in place when it is a file (link(2)); a
    /// directory is renamed (rename(2) fails on a non-empty directory or a file; it
    /// can replace only an empty directory, which holds nothing). Throws an error
    /// for which ``isNameTaken(_:)`` is true when `target` is in use.
    package static func linkOrRename(_ source: String, to target: String) throws {
        if let st = try Sys.lstat(source), Sys.isRegular(st) {
            try Sys.link(source, to: target)
        } else {
            try Sys.rename(source, to: target)
        }
    }

    /// Moves the entry at `source` to `target` without ever replacing what is
    /// there: a file by link(2) then unlink(2) of `source`; a directory by
    /// rename(2). Throws an error for which ``isNameTaken(_:)`` is true when
    /// `target` is in use by another entry; one for which ``isMissing(_:)`` is true
    /// when `source` is gone.
    package static func moveWithoutReplacing(_ source: String, to target: String) throws {
        guard let st = try Sys.lstat(source) else {
            throw AppGroupError.systemCall(operation: "lstat", path: source, errno: .ENOENT)
        }
        guard !Sys.isDirectory(st) else {
            try Sys.rename(source, to: target)
            return
        }
        do {
            try Sys.link(source, to: target)
        } catch AppGroupError.systemCall(_, _, let code) where Sys.isNameTaken(code) {
            // A move killed between its link and its unlink left two names for one
            // file: finishing it is not a collision.
            guard let there = try Sys.lstat(target), there.st_dev == st.st_dev, there.st_ino == st.st_ino else {
                throw AppGroupError.systemCall(operation: "link", path: target, errno: code)
            }
        }
        try Sys.unlink(source)
    }
}
