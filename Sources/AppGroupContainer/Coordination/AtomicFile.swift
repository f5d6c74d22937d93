import AppGroupSystem
import Foundation

/// Whole-file reads and atomic, durable replacement of files inside a container:
/// what the package's stores save their files with.
///
/// A save writes a temporary file in the same directory
/// (`.<name>.tmp-<pid>-<random>`, O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600; the
/// prefix shortened by `FileNames` when the name would pass 255 bytes), fsyncs
/// it, renames it over the target and fsyncs the directory. A reader therefore
/// sees the old file or the new one, never a torn or empty one. A save that fails
/// leaves the old content and removes its temporary file.
///
/// Every function is given the ``ContainerRoot`` the file lies under (nil for a
/// file under none): every save, read and removal works relative to the file's
/// directory reached from that root without following a link (`ContainedDirectory`),
/// checked at each call, so a link planted after a suite was opened is refused
/// with ``AppGroupError/unsafePath(path:problem:)`` and nothing is written outside
/// the root. A read opens the file with one openat2(2) that follows no link at any
/// component (the same guarantee in fewer system calls), and walks when the
/// kernel declines.
///
/// AtomicFile does not lock: callers hold a ``FileCoordinator`` write
/// coordination on the target while they read, modify and save.
package enum AtomicFile {
    /// Largest file ``read(_:below:limit:)`` accepts by default (64 MiB).
    package static let defaultReadLimit: Int64 = 64 << 20

    /// A file's identity (device, inode, size, change time).
    package typealias Identity = FileIdentity

    /// Replaces `url` with `data`, atomically; durably unless `durable` is false
    /// (then neither file nor directory is fsynced: a crash may lose the new
    /// content, but never tears it).
    /// - Throws: disk full, I/O error, a symbolic link or a directory standing
    ///   where the file belongs; the old content is then intact, except after
    ///   ``AppGroupError/notDurable(path:operation:errno:)``: the new content is
    ///   in place, only the directory's fsync failed.
    package static func write(_ data: Data, to url: URL, below root: ContainerRoot?, durable: Bool = true) throws(AppGroupError) {
        let target = url.standardizedFileURL
        let name = target.lastPathComponent
        // Everything below happens relative to the directory's descriptor, reached
        // without following a link below the container root: a link planted at
        // Library/Preferences (or above) after the file was first written fails
        // here, at this write, and cannot redirect the rename later.
        let directory = try fromSystem(ContainedDirectory.open(target.deletingLastPathComponent().path, below: root?.path))
        defer { directory.close() }
        try write(data, named: name, in: directory, durable: durable)
    }

    /// ``write(_:to:below:durable:)`` of the file `name` in an already opened
    /// directory: every step relative to its descriptor.
    static func write(_ data: Data, named name: String, in directory: ContainedDirectory, durable: Bool) throws(AppGroupError) {
        let targetPath = directory.path(of: name)
        if let st = try fromSystem(SystemCalls.lstat(at: directory.fd, name, path: targetPath)), !SystemCalls.isRegular(st) {
            if SystemCalls.isSymlink(st) {
                throw .unsafePath(path: targetPath, problem: "a symbolic link stands where the file belongs; it was left untouched, remove it")
            }
            throw .notARegularFile(path: targetPath, kind: SystemCalls.fileKind(st.st_mode))
        }
        let temporary = try createTemporary(in: directory, for: name)
        var done = false
        defer { if !done { _ = try? SystemCalls.unlink(at: directory.fd, temporary.name, path: temporary.path) } }
        do throws(SystemError) {
            try SystemCalls.writeAll(temporary.fd, data, path: temporary.path)
            if durable { try SystemCalls.fsync(temporary.fd, path: temporary.path) }
        } catch {
            SystemCalls.close(temporary.fd)
            throw AppGroupError(error)
        }
        SystemCalls.close(temporary.fd)
        // The moment the new content becomes visible: a coordinated step of an
        // exploring device (a reader that does not lock sees old or new by it).
        Exploration.step("rename", targetPath)
        try fromSystem(SystemCalls.rename(at: directory.fd, temporary.name, to: name, path: targetPath))
        done = true
        if durable { try syncDirectory(directory, afterChanging: targetPath) }
    }

    /// Reads the whole regular file at `url`, refusing symbolic links, non-regular
    /// files and files over `limit` bytes. Nil when no file is there.
    package static func read(_ url: URL, below root: ContainerRoot?, limit: Int64 = defaultReadLimit) throws(AppGroupError) -> Data? {
        try readWithIdentity(url, below: root, limit: limit).map(\.data)
    }

    /// The identity of the file at `path` (one lstat), nil when nothing is there.
    /// Callers that check one file often keep its path, because building it from
    /// a URL costs more than the lstat itself.
    /// - Throws: when something other than a regular file stands there.
    package static func identity(atPath path: String, below root: ContainerRoot?) throws(AppGroupError) -> Identity? {
        guard let st = try fromSystem(SystemCalls.lstat(path)) else {
            // Absent, or absent behind a link planted above it (the lstat followed
            // it): only the walk from the root tells, and this path is rare.
            try fromSystem(ContainedDirectory.requireNoLink(above: path, below: root?.path))
            return nil
        }
        guard SystemCalls.isRegular(st) else {
            if SystemCalls.isSymlink(st) { throw .unsafePath(path: path, problem: "a symbolic link stands where the file belongs; remove it") }
            throw .notARegularFile(path: path, kind: SystemCalls.fileKind(st.st_mode))
        }
        return Identity(st)
    }

    /// Reads the file and returns its content with the identity of the inode read
    /// (taken from the open descriptor, so the two always belong together).
    package static func readWithIdentity(_ url: URL, below root: ContainerRoot?, limit: Int64 = defaultReadLimit) throws(AppGroupError) -> (data: Data, identity: Identity)? {
        let path = url.path
        guard let (fd, st) = try openRegular(path, below: root, limit: limit) else { return nil }
        defer { SystemCalls.close(fd) }
        let data = try fromSystem(SystemCalls.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: limit))
        return (data, Identity(st))
    }

    /// Removes the file at `url` (not following links); false when it was not there.
    @discardableResult
    package static func remove(_ url: URL, below root: ContainerRoot?, durable: Bool = true) throws(AppGroupError) -> Bool {
        let target = url.standardizedFileURL
        return try fromSystem { () throws(SystemError) -> Bool in
            let directory = try ContainedDirectory.open(target.deletingLastPathComponent().path, below: root?.path)
            defer { directory.close() }
            let removed = try SystemCalls.unlink(at: directory.fd, target.lastPathComponent, path: target.path)
            if removed && durable { try SystemCalls.fsync(directory.fd, path: directory.path) }
            return removed
        }
    }

    /// Throws unless the directory at `url` is reached from `root` without a
    /// symbolic link or a non-directory on the way (a missing directory passes):
    /// a store checks its own directory this way before it works in it by path.
    package static func requireContainedDirectory(_ url: URL, below root: ContainerRoot?) throws(AppGroupError) {
        let path = url.standardizedFileURL.path
        do {
            try fromSystem(ContainedDirectory.open(path, below: root?.path).close())
        } catch .systemCall(_, _, let code) where code == .ENOENT {
            return
        }
    }

    /// The prefix of temporary files made for `name`: a crashed writer's leftovers
    /// start with it and are never read as data.
    /// `.<name>.tmp-`, shortened by ``FileNames/temporaryPrefix(for:)`` when a
    /// temporary name would not fit in 255 bytes.
    package static func temporaryPrefix(for name: String) -> String { FileNames.temporaryPrefix(for: name) }

    /// True for a name made by ``write(_:to:below:durable:)`` as a temporary file.
    package static func isTemporaryName(_ name: String) -> Bool { name.hasPrefix(".") && name.contains(".tmp-") }

    /// Removes temporary files that writers killed mid-save left in `directory`
    /// for `name`, when older than `age` seconds (a live writer's file is younger).
    /// Returns how many were removed.
    @discardableResult
    package static func removeStaleTemporaries(in directory: URL, below root: ContainerRoot?, for name: String? = nil, olderThan age: TimeInterval = 60) -> Int {
        // Listed and removed relative to the directory reached without following a
        // link below the root: a planted link never makes this remove files elsewhere.
        guard let opened = try? ContainedDirectory.open(directory.standardizedFileURL.path, below: root?.path) else { return 0 }
        defer { opened.close() }
        var names: [String] = []
        let prefix = name.map { Array(temporaryPrefix(for: $0).utf8) }
        _ = try? SystemCalls.forEachEntry(at: opened.fd, path: opened.path) { entry in
            // Byte prefix: a name that differs only in normalization is another file's.
            if isTemporaryName(entry) && (prefix.map { entry.utf8.starts(with: $0) } ?? true) { names.append(entry) }
        }
        let now = Date().timeIntervalSince1970
        var removed = 0
        for entry in names {
            let path = opened.path(of: entry)
            guard let st = try? SystemCalls.lstat(at: opened.fd, entry, path: path), SystemCalls.isRegular(st) else { continue }
            if now - SystemCalls.modified(st).rounded(.down) >= age, (try? SystemCalls.unlink(at: opened.fd, entry, path: path)) == true { removed += 1 }
        }
        return removed
    }

    private static func createTemporary(in directory: ContainedDirectory, for name: String) throws(AppGroupError) -> (name: String, path: String, fd: Int32) {
        let prefix = temporaryPrefix(for: name)
        while true {
            let temporary = prefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let path = directory.path(of: temporary)
            do {
                let fd = try SystemCalls.open(at: directory.fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: SystemCalls.fileMode, path: path)
                // O_CREAT applied the umask: files are 0600 whatever it is.
                try? SystemCalls.fchmod(fd, SystemCalls.fileMode, path: path)
                return (temporary, path, fd)
            } catch .call(_, _, let code) where code == .EEXIST {
                continue
            } catch {
                throw AppGroupError(error)
            }
        }
    }

    /// fsync(2) on a directory, so that a rename in it survives a crash.
    static func syncDirectory(_ path: String) throws(AppGroupError) {
        try fromSystem { () throws(SystemError) in
            let fd = try SystemCalls.open(path, O_RDONLY | O_DIRECTORY)
            defer { SystemCalls.close(fd) }
            try SystemCalls.fsync(fd, path: path)
        }
    }

    /// fsync(2) of an open directory, with the same failure as the path form.
    static func syncDirectory(_ directory: ContainedDirectory, afterChanging changed: String) throws(AppGroupError) {
        do {
            try SystemCalls.fsync(directory.fd, path: directory.path)
        } catch {
            throw notDurable(error, changed: changed)
        }
    }

    /// ``syncDirectory(_:)`` after `changed` was renamed or linked into place: a
    /// failure then is ``AppGroupError/notDurable(path:operation:errno:)``, never an
    /// error that would let a caller believe nothing changed (and repeat it).
    static func syncDirectory(_ path: String, afterChanging changed: String) throws(AppGroupError) {
        do {
            try syncDirectory(path)
        } catch .systemCall(let operation, let directory, let code) {
            throw .notDurable(path: changed, operation: "\(operation)(\(directory))", errno: code)
        }
    }

    /// A failed directory fsync after `changed` got its name, as the error that
    /// says the change happened.
    private static func notDurable(_ error: SystemError, changed: String) -> AppGroupError {
        guard case let .call(operation, path, code) = error else { return AppGroupError(error) }
        return .notDurable(path: changed, operation: "\(operation)(\(path))", errno: code)
    }
}
