import AppGroupSystem
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
    package static func removeTree(_ path: String, maximumDepth: Int) throws(AppGroupError) {
        let fd: Int32
        do {
            fd = try SystemCalls.openDirectory(SystemCalls.component(path), in: AT_FDCWD, path: path)
        } catch .call(_, _, let code) where code == .ENOTDIR || code == .ELOOP {
            try fromSystem(SystemCalls.unlink(path)) // a file or a link: one name to remove
            return
        } catch .call(_, _, let code) where code == .ENOENT {
            return
        } catch {
            throw AppGroupError(error)
        }
        defer { SystemCalls.close(fd) }
        try fromSystem(removeContents(of: fd, path: path, depth: 1, maximumDepth: maximumDepth))
        try fromSystem(SystemCalls.rmdir(path))
    }

    private static func removeContents(of fd: Int32, path: String, depth: Int, maximumDepth: Int) throws(SystemError) {
        for name in try SystemCalls.entryNames(ofDirectory: fd, path: path) {
            let child = path + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let st = try SystemCalls.lstat(name, in: fd, path: child) else { continue }
            if SystemCalls.isDirectory(st) {
                guard depth < maximumDepth else {
                    throw .unsafePath(path: child, problem: "directories nest more than \(maximumDepth) levels deep, more than expected here; it was not removed")
                }
                let sub = try SystemCalls.openDirectory(name, in: fd, path: child)
                defer { SystemCalls.close(sub) }
                try removeContents(of: sub, path: child, depth: depth + 1, maximumDepth: maximumDepth)
                try SystemCalls.unlink(name, in: fd, directory: true, path: child)
            } else {
                try SystemCalls.unlink(name, in: fd, directory: false, path: child)
            }
        }
    }
}
