import AppGroupSystem
import Foundation

/// Removing a tree a target may write, by descriptors only: every entry is looked
/// at with `fstatat(AT_SYMLINK_NOFOLLOW)` relative to its open parent, a directory
/// is entered with `openat(O_DIRECTORY|O_NOFOLLOW)` and every name is removed with
/// `unlinkat` relative to that parent. A link is removed, never followed; an entry
/// swapped for another kind between the look and the removal is looked at again.
/// No depth stops it and no path is ever built to reach anything: a directory
/// nested deeper than ``removalDepth`` is moved up (`renameat`) to the top of the
/// tree and removed from there, so a crafted tree deeper than PATH_MAX, or than the
/// descriptors the process may hold, is still removed whole.
extension HeldDirectory {
    /// Directories held open at once on one branch; deeper ones are moved up.
    package static let removalDepth = 48
    /// Passes over the top of a tree before the removal gives up (a tree rewritten
    /// as fast as it is removed: a target process still running).
    static let removalPasses = 100_000

    /// Removes the entry `name` of this directory and, when it is a directory,
    /// everything under it. Nothing there is not an error.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` when the tree keeps
    ///   changing while it is removed; ``AppGroupError/systemCall(operation:path:errno:)``
    ///   when an entry cannot be removed. What was removed before stays removed.
    package func removeTree(_ name: String) throws(AppGroupError) {
        let component = try Self.component(name, in: path)
        try fromSystem(steps: { () throws(SystemError) in
            var moved = 0
            try Self.removeEntry(component, in: fd, path: path(of: name), depth: 0, top: nil, moved: &moved)
        })
    }

    /// Removes everything in this directory, leaving it empty.
    package func removeContents() throws(AppGroupError) {
        try fromSystem(steps: { () throws(SystemError) in
            var moved = 0
            try Self.removeAll(in: fd, path: path, depth: 1, top: fd, moved: &moved)
        })
    }

    /// Removes the tree at `path` (absolute), whose parent directory is the caller's
    /// own (no target may write there: the device's folder sits in the system's
    /// temporary directory): the parent is opened by its path, the rest by descriptors.
    package static func removeTree(atPath path: String) throws(AppGroupError) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let parent = url.deletingLastPathComponent().path
        let held = try fromSystem(ContainedDirectory.open(parent, below: nil))
        try HeldDirectory(fd: held.fd, path: parent).removeTree(url.lastPathComponent)
    }

    private static func removeEntry(_ name: [CChar], in parent: Int32, path: String, depth: Int, top: Int32?,
                                    moved: inout Int) throws(SystemError) {
        for _ in 0..<8 {
            guard let status = try SystemCalls.lstat(name, in: parent, path: path) else { return }
            if !SystemCalls.isDirectory(status) {
                do {
                    try SystemCalls.unlink(name, in: parent, directory: false, path: path)
                    return
                } catch .call(_, _, let code) where code == .EISDIR || code == .EPERM {
                    continue // it became a directory meanwhile
                }
            }
            if let top, depth >= removalDepth {
                // Too deep to hold open: moved up to the top, removed by a later pass.
                moved += 1
                let name2 = SystemCalls.component(".removing-\(moved)-\(UInt32.random(in: 0 ... .max))")
                try SystemCalls.rename(name, in: parent, to: name2, in: top, path: path)
                return
            }
            let sub: Int32
            do {
                sub = try SystemCalls.openDirectory(name, in: parent, path: path)
            } catch .call(_, _, let code) where code == .ELOOP || code == .ENOTDIR {
                continue // it became a link or a file meanwhile: removed as one
            } catch .call(_, _, let code) where code == .EACCES {
                // Its writer took away our permissions (chmod is not Landlock's to refuse).
                try SystemCalls.allowOwner(directory: name, in: parent, path: path)
                continue
            }
            do {
                defer { SystemCalls.close(sub) }
                if (status.st_mode & 0o700) != 0o700 { try? SystemCalls.fchmod(sub, 0o700, path: path) }
                try removeAll(in: sub, path: path, depth: depth + 1, top: top ?? sub, moved: &moved)
            }
            do {
                try SystemCalls.unlink(name, in: parent, directory: true, path: path)
                return
            } catch .call(_, _, let code) where code == .ENOTEMPTY || code == .EEXIST || code == .ENOTDIR {
                continue // something was added (or swapped in) meanwhile
            }
        }
        throw .unsafePath(path: path, problem: "it kept changing while it was removed (is a process still writing there?); what could be removed was")
    }

    /// Removes the entries of the open directory `fd`; at the top of a tree, again
    /// until none is left (the directories moved up from below).
    private static func removeAll(in fd: Int32, path: String, depth: Int, top: Int32, moved: inout Int) throws(SystemError) {
        var passes = 0
        while true {
            let names = try SystemCalls.entryNames(ofDirectory: fd, path: path)
            if names.isEmpty { return }
            for name in names {
                let child = path + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
                try removeEntry(name, in: fd, path: child, depth: depth, top: top, moved: &moved)
            }
            // Below the top, one pass: what is moved up goes to the top's next pass.
            guard fd == top else { return }
            passes += 1
            if passes >= removalPasses {
                throw .unsafePath(path: path, problem: "entries kept appearing while it was removed (\(passes) passes; is a process still writing there?)")
            }
        }
    }
}
