import Foundation
import AppGroupSystem

extension AtomicFile {
    /// An open read-only descriptor on a file, holding its inode alive.
    ///
    /// An ``Identity`` is only unique while its inode exists: after an atomic save
    /// frees the old inode, the next save may get the same inode number back, and
    /// with the same size and a coarse ctime (older kernels tick every few
    /// milliseconds) the new file would look unchanged. A cache that keeps the pin
    /// of the file it parsed cannot be fooled this way: the pinned inode number is
    /// not reused while the pin lives. The descriptor closes when the pin is released.
    package final class Pin: Sendable {
        /// The identity of the pinned file, from fstat(2) of the descriptor.
        package let identity: Identity
        private let fd: Int32

        fileprivate init(fd: Int32, identity: Identity) {
            self.fd = fd
            self.identity = identity
        }

        // Closed off the caller's thread: the pinned file was usually replaced, so
        // this close frees its blocks, and where freed blocks are discarded
        // synchronously (ext4 with `discard`) that waits a millisecond or more for
        // the device, the larger part of a read after another process's save.
        deinit {
            let fd = self.fd
            Self.closing.async { SystemCalls.close(fd) }
        }

        fileprivate static let closing = DispatchQueue(label: "AtomicFile.Pin.close")
    }

    /// Lets go of `value` on a background queue: a cache replaced by a re-read is
    /// freed there (every key and value of a suite; its pin then goes to the
    /// closing queue), not on the thread of the read that replaced it. A queue of
    /// its own, so that memory is not held behind closes that wait for the device.
    package static func releaseInBackground<Value: Sendable>(_ value: Value) {
        releasing.async { withExtendedLifetime(value) {} }
    }

    private static let releasing = DispatchQueue(label: "AtomicFile.release")

    /// Returns once every value handed to ``releaseInBackground(_:)`` so far is
    /// freed and every pin dropped so far is closed: the blocks of replaced files
    /// are then given back. For a caller that measures disk space (a full-disk
    /// test); nothing else needs to wait.
    package static func waitForBackgroundReleases() {
        releasing.sync {}
        Pin.closing.sync {}
    }

    /// ``readWithIdentity(_:limit:)`` that keeps the file open: the content and the
    /// pin of the inode it came from. Nil when no file is there.
    package static func readPinned(_ url: URL, below root: ContainerRoot?, limit: Int64 = defaultReadLimit) throws(AppGroupError) -> (data: Data, pin: Pin)? {
        try readPinned(atPath: url.path, below: root, limit: limit)
    }

    /// ``readPinned(_:limit:)`` by path: a store that re-reads its file keeps the
    /// path, which costs less than building it from the URL at each read. A store
    /// that found it standard once (``isStandardPath(_:)``) says so in `standard`,
    /// and the path is not scanned again at each read.
    package static func readPinned(atPath path: String, below root: ContainerRoot?, limit: Int64 = defaultReadLimit,
                                   standard: Bool = false) throws(AppGroupError) -> (data: Data, pin: Pin)? {
        guard let (fd, st) = try openRegular(path, below: root, limit: limit, standard: standard) else { return nil }
        let pin = Pin(fd: fd, identity: Identity(st))
        let data = try fromSystem(SystemCalls.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: limit))
        return (data, pin)
    }

    /// What ``readPinned(atPath:below:unlessIdentity:limit:standard:)`` found.
    package enum PinnedRead: Sendable {
        /// The file there still has the identity the caller holds: nothing was read.
        case unchanged
        /// Another file, or the same one changed: its content and its pin.
        case changed(data: Data, pin: Pin)
    }

    /// ``readPinned(atPath:below:limit:standard:)`` for a reader that expects the
    /// file to have changed since it pinned `identity`: the file is opened as that
    /// function opens it (no link followed, no FIFO waited on, nothing over
    /// `limit`) and its identity taken from the descriptor's fstat; when it is still
    /// `identity`, the descriptor is closed and nothing is read. One path walk
    /// (the open) where an lstat and then the open take two: the lstat was a large
    /// share of a re-read after another process's save. Nil when no file is there.
    package static func readPinned(atPath path: String, below root: ContainerRoot?, unlessIdentity identity: Identity?,
                                   limit: Int64 = defaultReadLimit, standard: Bool = false) throws(AppGroupError) -> PinnedRead? {
        guard let (fd, st) = try openRegular(path, below: root, limit: limit, standard: standard) else { return nil }
        let found = Identity(st)
        if found == identity {
            // The caller's pin keeps that inode: this close frees nothing.
            SystemCalls.close(fd)
            return .unchanged
        }
        let pin = Pin(fd: fd, identity: found)
        let data = try fromSystem(SystemCalls.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: limit))
        return .changed(data: data, pin: pin)
    }

    /// True when `path` is absolute and standard (no empty, `.` or `..` component,
    /// no trailing slash): what ``readPinned(atPath:below:limit:standard:)`` may
    /// then be told instead of scanning it at each read (a noticeable share of a
    /// read of a small suite after another process's save).
    package static func isStandardPath(_ path: String) -> Bool {
        PathScan(path).isStandardAbsolute
    }

    /// Pins the file at `path` without reading it (nil when none is there): after a
    /// save, the saver pins what it wrote so its cache stays valid.
    package static func pin(atPath path: String, below root: ContainerRoot?) throws(AppGroupError) -> Pin? {
        guard let (fd, st) = try openRegular(path, below: root, limit: Int64.max) else { return nil }
        return Pin(fd: fd, identity: Identity(st))
    }

    /// Opens the regular file at `path` read-only, refusing symbolic links (at the
    /// file, and at any directory between `root` and it: the file is opened by one
    /// openat2 that follows no link, or, where that does not settle it, relative
    /// to a `ContainedDirectory` walked from the root), other kinds of file (a FIFO
    /// does not block: O_NONBLOCK) and files over `limit`. Nil when nothing is there.
    static func openRegular(_ path: String, below root: ContainerRoot?, limit: Int64, standard: Bool = false) throws(AppGroupError) -> (Int32, SystemCalls.FileStatus)? {
        let standardized = standard || PathScan(path).isStandardAbsolute ? path : URL(fileURLWithPath: path).standardizedFileURL.path
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK
        let fd: Int32
        switch ContainedDirectory.openFile(standardized, below: root?.path, flags: flags) {
        case .opened(let opened): fd = opened
        case .absent: return nil
        case .walk:
            guard let walked = try openWalking(standardized, below: root, flags: flags, path: path) else { return nil }
            fd = walked
        }
        do throws(AppGroupError) {
            let st = try fromSystem(SystemCalls.fstat(fd, path: path))
            guard SystemCalls.isRegular(st) else { throw .notARegularFile(path: path, kind: SystemCalls.fileKind(st.st_mode)) }
            if Int64(st.st_size) > limit { throw .fileTooLarge(path: path, size: Int64(st.st_size), limit: limit) }
            return (fd, st)
        } catch {
            SystemCalls.close(fd)
            throw error
        }
    }

    /// ``openRegular(_:below:limit:)``'s open by a walk from the root, one
    /// directory at a time. Nil when nothing is there.
    private static func openWalking(_ standardized: String, below root: ContainerRoot?, flags: Int32, path: String) throws(AppGroupError) -> Int32? {
        guard let slash = standardized.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let directoryPath = slash == standardized.utf8.startIndex ? "/" : String(standardized[..<slash])
        let name = String(standardized[standardized.utf8.index(after: slash)...])
        guard let directory = try ContainedDirectory.openIfPresent(directoryPath, below: root) else { return nil }
        defer { directory.close() }
        do {
            return try SystemCalls.open(at: directory.fd, name, flags, path: path)
        } catch .call(_, _, let code) where code == .ENOENT {
            return nil
        } catch .call(_, _, let code) where code == .ELOOP {
            throw .unsafePath(path: path, problem: "a symbolic link stands where the file belongs; it was not followed, remove it")
        } catch {
            throw AppGroupError(error)
        }
    }
}
