import Foundation

/// Bounded removal of a directory tree by descriptors (openat, unlinkat): no link
/// is followed, no long path is built, and the walk gives up past a depth the
/// caller chooses, so a crafted tree deeper than PATH_MAX neither crashes nor
/// stalls the caller.
extension FileOperations {
    /// Removes `path` and, when it is a directory, everything under it (links are
    /// removed, not followed). Nothing there is not an error. A directory nested
    /// more than `maximumDepth` levels below `path` is not entered: the removal
    /// throws ``AppGroupError/unsafePath(path:problem:)`` naming it, and what was
    /// removed before stays removed.
    package static func removeTree(_ path: String, maximumDepth: Int) throws {
        let fd: Int32
        do {
            fd = try Sys.openDirectory(Sys.component(path), in: AT_FDCWD, path: path)
        } catch AppGroupError.systemCall(_, _, let code) where code == .ENOTDIR || code == .ELOOP {
            try Sys.unlink(path) // a file or a link: one name to remove
            return
        } catch AppGroupError.systemCall(_, _, let code) where code == .ENOENT {
            return
        }
        defer { Sys.close(fd) }
        try removeContents(of: fd, path: path, depth: 1, maximumDepth: maximumDepth)
        try Sys.rmdir(path)
    }

    private static func removeContents(of fd: Int32, path: String, depth: Int, maximumDepth: Int) throws {
        for name in try Sys.entryNames(ofDirectory: fd, path: path) {
            let child = path + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let st = try Sys.lstat(name, in: fd, path: child) else { continue }
            if Sys.isDirectory(st) {
                guard depth < maximumDepth else {
                    throw AppGroupError.unsafePath(path: child, problem: "directories nest more than \(maximumDepth) levels deep, more than expected here; it was not removed")
                }
                let sub = try Sys.openDirectory(name, in: fd, path: child)
                defer { Sys.close(sub) }
                try removeContents(of: sub, path: child, depth: depth + 1, maximumDepth: maximumDepth)
                try Sys.unlink(name, in: fd, directory: true, path: child)
            } else {
                try Sys.unlink(name, in: fd, directory: false, path: child)
            }
        }
    }
}
