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
        // The directory the walk would reach, by openat2 that follows no link (one
        // call, or three with a link above the root) instead of two calls per
        // directory: an inbox's enqueue walks at every call. Anything else (a link
        // below the root, a non-directory, a missing directory, no openat2) is
        // settled by the walk, which names what is in the way.
        if PathScan(path).isStandardAbsolute, case .opened(let fd) = openFile(beneathRootOf: path, flags: O_RDONLY | O_DIRECTORY) {
            return ContainedDirectory(fd: fd, path: path)
        }
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

    /// How ``openFile(beneathRootOf:flags:)`` ended.
    enum BeneathOpen {
        case opened(Int32)
        case absent
        /// Not settled: walk with ``open(_:)``, which also names what is in the way.
        case walk
    }

    /// Opens the file (with O_DIRECTORY, the directory) at the absolute,
    /// standardized `path` with openat2(2), following no symbolic link at any
    /// component below its container root and resolving
    /// nothing outside it: the guarantee of ``open(_:)``'s walk followed by an
    /// O_NOFOLLOW open, where the walk makes two system calls per directory. First
    /// the whole path with no link followed anywhere (one call: stronger than
    /// needed, and the usual case), then, when a link stands above the root (the
    /// root and what is above it are trusted as configured), the path below the
    /// root from the root's descriptor (three calls). `.walk` when a link stands in
    /// a path under no root, when the kernel refuses (a link or a non-directory below the root:
    /// the walk then says which), or lacks openat2.
    static func openFile(beneathRootOf path: String, flags: Int32) -> BeneathOpen {
        // No link anywhere: the file any walk would reach, root or no root (so the
        // root is looked up only when a link is found).
        switch Sys.openBeneath(AT_FDCWD, path, flags, path: path) {
        case .success(let fd): return .opened(fd)
        case .failure(let code) where code == .ENOENT: return .absent
        case .failure(let code) where code == .ELOOP: break // a link somewhere: above the root is allowed
        case .failure: return .walk
        }
        guard let root = ContainerRoots.root(containing: path) else { return .walk }
        let relative = String(decoding: path.utf8.dropFirst(root.utf8.count + 1), as: UTF8.self)
        guard !relative.isEmpty, let rootFD = try? Sys.open(root, O_RDONLY | O_DIRECTORY) else { return .walk }
        defer { Sys.close(rootFD) }
        switch Sys.openBeneath(rootFD, relative, flags, path: path) {
        case .success(let fd): return .opened(fd)
        case .failure(let code) where code == .ENOENT: return .absent
        case .failure: return .walk
        }
    }

    /// Throws ``AppGroupError/unsafePath(path:problem:)`` when a link or a non-directory
    /// stands between the container root and the file at `path`; returns when the
    /// walk succeeds or a directory on the way does not exist yet.
    static func requireNoLink(above path: String) throws {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else { return }
        do {
            try open(String(path[..<slash])).close()
        } catch AppGroupError.systemCall(_, _, let code) where code == .ENOENT {
            return
        }
    }

    /// The full path of `name` in this directory.
    func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }
}

extension AtomicFile {
    /// Walks from the container root to the directory at `url` without following a
    /// link (as every save does) and returns: for stores that work by path, a check
    /// at each operation that nothing was swapped for a link since they were opened.
    /// - Throws: ``AppGroupError/unsafePath(path:problem:)`` for a link or a
    ///   non-directory on the way; file-system errors (ENOENT when it is gone).
    package static func requireContainedDirectory(_ url: URL) throws {
        try ContainedDirectory.open(url.standardizedFileURL.path).close()
    }
}
