import AppGroupSystem
import Foundation

/// Moves that never replace what is at the new name: rename(2) replaces a file
/// silently, so a file gets its new name by link(2), which refuses a taken name.
extension FileOperations {
    /// Gives the entry at `source` the name `target` without replacing anything
    /// there, and leaves `source` in place when it is a file (link(2)); a
    /// directory is renamed (rename(2) fails on a non-empty directory or a file; it
    /// can replace only an empty directory, which holds nothing). Throws an error
    /// for which ``isNameTaken(_:)`` is true when `target` is in use.
    package static func linkOrRename(_ source: String, to target: String) throws(AppGroupError) {
        try fromSystem { () throws(SystemError) in
            if let st = try SystemCalls.lstat(source), SystemCalls.isRegular(st) {
                try SystemCalls.link(source, to: target)
            } else {
                try SystemCalls.rename(source, to: target)
            }
        }
    }

    /// Moves the entry at `source` to `target` without ever replacing what is
    /// there: a file by link(2) then unlink(2) of `source`; a directory by
    /// rename(2). Throws an error for which ``isNameTaken(_:)`` is true when
    /// `target` is in use by another entry; one for which ``isMissing(_:)`` is true
    /// when `source` is gone.
    package static func moveWithoutReplacing(_ source: String, to target: String) throws(AppGroupError) {
        try fromSystem { () throws(SystemError) in
            guard let st = try SystemCalls.lstat(source) else {
                throw .call(operation: "lstat", path: source, errno: .ENOENT)
            }
            guard !SystemCalls.isDirectory(st) else {
                try SystemCalls.rename(source, to: target)
                return
            }
            do throws(SystemError) {
                try SystemCalls.link(source, to: target)
            } catch .call(_, _, let code) where SystemCalls.isNameTaken(code) {
                // A move killed between its link and its unlink left two names for one
                // file: finishing it is not a collision.
                guard let there = try SystemCalls.lstat(target), there.st_dev == st.st_dev, there.st_ino == st.st_ino else {
                    throw .call(operation: "link", path: target, errno: code)
                }
            }
            try SystemCalls.unlink(source)
        }
    }
}
