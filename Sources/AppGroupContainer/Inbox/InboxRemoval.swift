import Foundation

/// Removal of inbox entries (items, tombstones, staging) and moves that never
/// replace anything.
///
/// Removal walks with descriptors (openat, unlinkat), never follows a link, and
/// gives up past ``maximumDepth`` levels: an item is its record plus flat files,
/// so anything deeper was planted, and a crafted tree deeper than PATH_MAX must
/// neither crash nor stall a drain. A tree that cannot be removed throws; the
/// caller quarantines it.
extension ShareInbox {
    /// Deepest directory nesting ``removeTree(_:)`` descends into.
    static let maximumDepth = 8

    /// Removes `path` and, when it is a directory, everything under it (links are
    /// removed, not followed). Nothing there is not an error.
    static func removeTree(_ path: String) throws {
        let fd: Int32
        do {
            fd = try Sys.openDirectory(Sys.component(path), in: AT_FDCWD, path: path)
        } catch AppGroupError.systemCall(_, _, let code) where code == ENOTDIR || code == ELOOP {
            try Sys.unlink(path) // a file or a link: one name to remove
            return
        } catch AppGroupError.systemCall(_, _, let code) where code == ENOENT {
            return
        }
        defer { Sys.close(fd) }
        try removeContents(of: fd, path: path, depth: 1)
        try Sys.rmdir(path)
    }

    private static func removeContents(of fd: Int32, path: String, depth: Int) throws {
        for name in try Sys.entryNames(ofDirectory: fd, path: path) {
            let child = path + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let st = try Sys.lstat(name, in: fd, path: child) else { continue }
            if Sys.isDirectory(st) {
                guard depth < maximumDepth else {
                    throw AppGroupError.invalidInboxItem(field: child, problem: "directories nest more than \(maximumDepth) levels deep, which no item does; it was not removed")
                }
                let sub = try Sys.openDirectory(name, in: fd, path: child)
                defer { Sys.close(sub) }
                try removeContents(of: sub, path: child, depth: depth + 1)
                try Sys.unlink(name, in: fd, directory: true, path: child)
            } else {
                try Sys.unlink(name, in: fd, directory: false, path: child)
            }
        }
    }

    /// Gives the entry at `source` the name `target` without ever replacing what
    /// is there: a file by link(2) then unlink(2) of `source` (rename would replace
    /// a file silently); a directory by rename(2), which fails on a non-empty
    /// directory or a file (it can replace only an empty directory, which holds
    /// nothing). Throws a name-taken ``AppGroupError/systemCall(operation:path:errno:)``
    /// (see ``Sys/isNameTaken(_:)``) when `target` is in use by another entry.
    static func moveWithoutReplacing(_ source: String, to target: String) throws {
        guard let st = try Sys.lstat(source) else {
            throw AppGroupError.systemCall(operation: "lstat", path: source, errno: ENOENT)
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
            guard let there = try Sys.lstat(target), there.st_dev == st.st_dev, there.st_ino == st.st_ino else { throw AppGroupError.systemCall(operation: "link", path: target, errno: code) }
        }
        try Sys.unlink(source)
    }

    /// Moves `path` into `Quarantine/` under `label` (a fresh suffix when the name
    /// is taken: a quarantined entry is never replaced) and returns where it went.
    @discardableResult
    func moveToQuarantine(_ path: String, label: String) throws -> String {
        var aside = quarantineDirectory.appendingPathComponent(label).path
        for _ in 0..<8 {
            do {
                try Self.moveWithoutReplacing(path, to: aside)
                return aside
            } catch AppGroupError.systemCall(_, _, let code) where Sys.isNameTaken(code) {
                aside = quarantineDirectory.appendingPathComponent(label + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)).path
            }
        }
        throw AppGroupError.systemCall(operation: "rename", path: aside, errno: EEXIST)
    }
}
