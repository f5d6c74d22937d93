import Foundation

/// An open descriptor on a directory reached without following a symbolic link
/// below a container root, so that a file can be created, renamed and synced
/// relative to it.
///
/// Opening walks from the root it is given one component at a time with
/// `openat(O_DIRECTORY|O_NOFOLLOW)`: a link planted at `Library/Preferences`, or
/// at any directory between the root and the file, fails the walk with
/// ``SystemError/unsafePath(path:problem:)``. Work done relative to the
/// descriptor afterwards cannot be redirected by a link planted later. The check
/// runs at every use, never once at open. The root and what is above it are
/// trusted as configured (they may be links, like macOS's `/tmp`); a directory
/// under no root (nil, or a root that does not hold it) is opened by its path, as given.
package struct ContainedDirectory: Sendable {
    package let fd: Int32
    /// The directory's path, for messages and fault plans.
    package let path: String

    package init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Opens the directory at the absolute, standardized `path`, walking from
    /// `root` (absolute, standardized) when `path` lies below it.
    package static func open(_ path: String, below root: String?) throws(SystemError) -> ContainedDirectory {
        // The directory the walk would reach, by openat2 that follows no link (one
        // call, or three with a link above the root) instead of two calls per
        // directory: an inbox's enqueue walks at every call. Anything else (a link
        // below the root, a non-directory, a missing directory, no openat2) is
        // settled by the walk, which names what is in the way.
        if PathScan(path).isStandardAbsolute, case .opened(let fd) = openFile(path, below: root, flags: O_RDONLY | O_DIRECTORY) {
            return ContainedDirectory(fd: fd, path: path)
        }
        guard let root = root.flatMap({ Self.holds($0, path) ? $0 : nil }) else {
            return ContainedDirectory(fd: try SystemCalls.open(path, O_RDONLY | O_DIRECTORY), path: path)
        }
        var fd = try SystemCalls.open(root, O_RDONLY | O_DIRECTORY)
        var reached = root
        let below = path.utf8.dropFirst(root.utf8.count).split(separator: UInt8(ascii: "/"))
        for bytes in below {
            let component = String(decoding: bytes, as: UTF8.self)
            reached += "/" + component
            if component == "." || component == ".." {
                SystemCalls.close(fd)
                throw SystemError.unsafePath(path: path, problem: "it has a '.' or '..' component below the container root \(root)")
            }
            do {
                let next = try SystemCalls.open(at: fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: reached)
                SystemCalls.close(fd)
                fd = next
            } catch .call(_, _, let code) where code == .ELOOP || code == .ENOTDIR {
                let kind = (try? SystemCalls.lstat(at: fd, component, path: reached)).flatMap { $0 }.map { SystemCalls.fileKind($0.st_mode) } ?? "file"
                SystemCalls.close(fd)
                throw SystemError.unsafePath(path: reached, problem: "a \(kind) stands where a directory of the container belongs (below the root \(root)); "
                    + "it was not followed and nothing was written. Remove it; the package makes the directory again")
            } catch {
                SystemCalls.close(fd)
                throw error
            }
        }
        return ContainedDirectory(fd: fd, path: path)
    }

    package func close() { SystemCalls.close(fd) }

    /// True when `path` lies strictly below `root` (compared as bytes).
    package static func holds(_ root: String, _ path: String) -> Bool {
        let r = root.utf8, p = path.utf8
        return p.count > r.count + 1 && p.starts(with: r) && p[p.index(p.startIndex, offsetBy: r.count)] == UInt8(ascii: "/")
    }

    /// How ``openFile(_:below:flags:)`` ended.
    package enum BeneathOpen {
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
    package static func openFile(_ path: String, below root: String?, flags: Int32) -> BeneathOpen {
        // No link anywhere: the file any walk would reach, root or no root.
        switch SystemCalls.openBeneath(AT_FDCWD, path, flags, path: path) {
        case .success(let fd): return .opened(fd)
        case .failure(let code) where code == .ENOENT: return .absent
        case .failure(let code) where code == .ELOOP: break // a link somewhere: above the root is allowed
        case .failure: return .walk
        }
        guard let root, Self.holds(root, path) else { return .walk }
        let relative = String(decoding: path.utf8.dropFirst(root.utf8.count + 1), as: UTF8.self)
        guard !relative.isEmpty, let rootFD = try? SystemCalls.open(root, O_RDONLY | O_DIRECTORY) else { return .walk }
        defer { SystemCalls.close(rootFD) }
        switch SystemCalls.openBeneath(rootFD, relative, flags, path: path) {
        case .success(let fd): return .opened(fd)
        case .failure(let code) where code == .ENOENT: return .absent
        case .failure: return .walk
        }
    }

    /// Throws ``SystemError/unsafePath(path:problem:)`` when a link or a non-directory
    /// stands between the container root and the file at `path`; returns when the
    /// walk succeeds or a directory on the way does not exist yet.
    package static func requireNoLink(above path: String, below root: String?) throws(SystemError) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else { return }
        do {
            try open(String(path[..<slash]), below: root).close()
        } catch .call(_, _, let code) where code == .ENOENT {
            return
        }
    }

    /// The full path of `name` in this directory.
    package func path(of name: String) -> String { path == "/" ? "/" + name : path + "/" + name }
}
