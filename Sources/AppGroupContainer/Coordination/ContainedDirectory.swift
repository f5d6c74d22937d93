import Foundation

/// An open descriptor on a directory reached without following a symbolic link
/// below its container root, so that a file can be created, renamed and synced
/// relative to it.
///
/// Opening walks from the root (``ContainerRoots``) one component at a time with
/// `openat(O_DIRECTORY|O_NOFOLLOW)`: a link planted at `Library/Preferences`, or
/// at any directory between the root and the file, fails the walk with
/// ``AppGroupError/unsafePath(path:problem:)``. Work done relative to the
/// descriptor afterwards cannot be redirected by a link planted later. The check
/// runs at every use, never once at open. A directory under no registered root is
/// opened by its path, as given.
struct ContainedDirectory {
    let fd: Int32
    /// The directory's path, for messages and fault plans.
    let path: String

    /// Opens the directory at the absolute, standardized `path`.
    static func open(_ path: String) throws -> ContainedDirectory {
        guard let root = ContainerRoots.root(containing: path) else {
            return ContainedDirectory(fd: try Sys.open(path, O_RDONLY | O_DIRECTORY), path: path)
        }
        var fd = try Sys.open(root, O_RDONLY | O_DIRECTORY)
        var reached = root
        let below = path.utf8.dropFirst(root.utf8.count).split(separator: UInt8(ascii: "/"))
        for bytes in below {
            let component = String(decoding: bytes, as: UTF8.self)
            reached += "/" + component
            if component == "." || component == ".." {
                Sys.close(fd)
                throw AppGroupError.unsafePath(path: path, problem: "it has a '.' or '..' component below the container root \(root)")
            }
            do {
                let next = try Sys.open(at: fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: reached)
                Sys.close(fd)
                fd = next
            } catch AppGroupError.systemCall(_, _, let code) where code == .ELOOP || code == .ENOTDIR {
                let kind = (try? Sys.lstat(at: fd, component, path: reached)).flatMap { $0 }.map { Sys.fileKind($0.st_mode) } ?? "file"
                Sys.close(fd)
                throw AppGroupError.unsafePath(path: reached, problem: "a \(kind) stands where a directory of the container belongs (below the root \(root)); "
                    + "it was not followed and nothing was written. Remove it; the package makes the directory again")
            } catch {
                Sys.close(fd)
                throw error
            }
        }
        return ContainedDirectory(fd: fd, path: path)
    }

    func close() { Sys.close(fd) }

    /// The full path of `name` in this directory.
    func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }
}
