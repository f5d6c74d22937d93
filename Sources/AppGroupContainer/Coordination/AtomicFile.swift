import Foundation

/// Whole-file reads and atomic, durable replacement of files inside a container.
///
/// A save writes a temporary file in the same directory
/// (`.<name>.tmp-<pid>-<random>`, O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600; the
/// prefix shortened by `FileNames` when the name would pass 255 bytes), fsyncs
/// it, renames it over the target and fsyncs the directory. A reader therefore
/// sees the old file or the new one, never a torn or empty one. A save that fails
/// leaves the old content and removes its temporary file.
///
/// Every save, read and removal works relative to the file's directory opened
/// through `ContainedDirectory`: below a container root no symbolic link is
/// followed, checked at each call, so a link planted after a suite was opened is
/// refused with ``AppGroupError/unsafePath(path:problem:)`` and nothing is written
/// outside the root. A read opens the file with one openat2(2) from the root that
/// follows no link at any component (the same guarantee in fewer system calls),
/// and walks when the kernel declines.
///
/// AtomicFile does not lock: callers hold a ``FileCoordinator`` write
/// coordination on the target while they read, modify and save.
public enum AtomicFile {
    /// Largest file ``read(_:limit:)`` accepts by default (64 MiB).
    public static let defaultReadLimit: Int64 = 64 << 20

    /// Replaces `url` with `data`, atomically; durably unless `durable` is false
    /// (then neither file nor directory is fsynced: a crash may lose the new
    /// content, but never tears it).
    /// - Throws: ``AppGroupError`` (disk full, I/O error, a symbolic link or a
    ///   directory standing where the file belongs); the old content is then intact,
    ///   except after ``AppGroupError/notDurable(path:operation:errno:)``: the new
    ///   content is in place, only the directory's fsync failed.
    public static func write(_ data: Data, to url: URL, durable: Bool = true) throws {
        let target = url.standardizedFileURL
        let name = target.lastPathComponent
        // Everything below happens relative to the directory's descriptor, reached
        // without following a link below the container root: a link planted at
        // Library/Preferences (or above) after the file was first written fails
        // here, at this write, and cannot redirect the rename later.
        let directory = try ContainedDirectory.open(target.deletingLastPathComponent().path)
        defer { directory.close() }
        try write(data, named: name, in: directory, durable: durable)
    }

    /// ``write(_:to:durable:)`` of the file `name` in an already opened directory:
    /// every step relative to its descriptor.
    static func write(_ data: Data, named name: String, in directory: ContainedDirectory, durable: Bool) throws {
        let targetPath = directory.path(of: name)
        if let st = try Sys.lstat(at: directory.fd, name, path: targetPath), !Sys.isRegular(st) {
            if Sys.isSymlink(st) {
                throw AppGroupError.unsafePath(path: targetPath, problem: "a symbolic link stands where the file belongs; it was left untouched, remove it")
            }
            throw AppGroupError.notARegularFile(path: targetPath, kind: Sys.fileKind(st.st_mode))
        }
        let temporary = try createTemporary(in: directory, for: name)
        var done = false
        defer { if !done { _ = try? Sys.unlink(at: directory.fd, temporary.name, path: temporary.path) } }
        do {
            try data.withUnsafeBytes { try Sys.writeAll(temporary.fd, $0, path: temporary.path) }
            if durable { try Sys.fsync(temporary.fd, path: temporary.path) }
        } catch {
            Sys.close(temporary.fd)
            throw error
        }
        Sys.close(temporary.fd)
        try Sys.rename(at: directory.fd, temporary.name, to: name, path: targetPath)
        done = true
        if durable { try syncDirectory(directory, afterChanging: targetPath) }
    }

    /// Reads the whole regular file at `url`, refusing symbolic links, non-regular
    /// files and files over `limit` bytes. Nil when no file is there.
    public static func read(_ url: URL, limit: Int64 = defaultReadLimit) throws -> Data? {
        try readWithIdentity(url, limit: limit).map(\.data)
    }

    /// A file's identity: device, inode, size and change time. An atomic save
    /// always changes the inode, so equal identities mean unchanged content.
    package struct Identity: Hashable, Sendable {
        package let device: UInt64
        package let inode: UInt64
        package let size: Int64
        package let changeSeconds: Int
        package let changeNanoseconds: Int

        init(_ st: Sys.FileStatus) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            #if canImport(Darwin)
            changeSeconds = Int(st.st_ctimespec.tv_sec)
            changeNanoseconds = Int(st.st_ctimespec.tv_nsec)
            #else
            changeSeconds = Int(st.st_ctim.tv_sec)
            changeNanoseconds = Int(st.st_ctim.tv_nsec)
            #endif
        }
    }

    /// The identity of the file at `url` (one lstat), nil when nothing is there.
    /// - Throws: when something other than a regular file stands there.
    package static func identity(of url: URL) throws -> Identity? {
        try identity(atPath: url.path)
    }

    /// ``identity(of:)`` for a path: callers that check one file often keep its
    /// path, because building it from a URL costs more than the lstat itself.
    package static func identity(atPath path: String) throws -> Identity? {
        guard let st = try Sys.lstat(path) else {
            // Absent, or absent behind a link planted above it (the lstat followed
            // it): only the walk from the root tells, and this path is rare.
            try ContainedDirectory.requireNoLink(above: path)
            return nil
        }
        guard Sys.isRegular(st) else {
            if Sys.isSymlink(st) { throw AppGroupError.unsafePath(path: path, problem: "a symbolic link stands where the file belongs; remove it") }
            throw AppGroupError.notARegularFile(path: path, kind: Sys.fileKind(st.st_mode))
        }
        return Identity(st)
    }

    /// Reads the file and returns its content with the identity of the inode read
    /// (taken from the open descriptor, so the two always belong together).
    package static func readWithIdentity(_ url: URL, limit: Int64 = defaultReadLimit) throws -> (data: Data, identity: Identity)? {
        let path = url.path
        guard let (fd, st) = try openRegular(path, limit: limit) else { return nil }
        defer { Sys.close(fd) }
        let data = try Sys.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: limit)
        return (data, Identity(st))
    }

    /// Removes the file at `url` (not following links); false when it was not there.
    @discardableResult
    public static func remove(_ url: URL, durable: Bool = true) throws -> Bool {
        let target = url.standardizedFileURL
        let directory = try ContainedDirectory.open(target.deletingLastPathComponent().path)
        defer { directory.close() }
        let removed = try Sys.unlink(at: directory.fd, target.lastPathComponent, path: target.path)
        if removed && durable { try Sys.fsync(directory.fd, path: directory.path) }
        return removed
    }

    /// The prefix of temporary files made for `name`: a crashed writer's leftovers
    /// start with it and are never read as data.
    /// `.<name>.tmp-`, shortened by ``FileNames/temporaryPrefix(for:)`` when a
    /// temporary name would not fit in 255 bytes.
    package static func temporaryPrefix(for name: String) -> String { FileNames.temporaryPrefix(for: name) }

    /// True for a name made by ``write(_:to:durable:)`` as a temporary file.
    package static func isTemporaryName(_ name: String) -> Bool { name.hasPrefix(".") && name.contains(".tmp-") }

    /// Removes temporary files that writers killed mid-save left in `directory`
    /// for `name`, when older than `age` seconds (a live writer's file is younger).
    /// Returns how many were removed.
    @discardableResult
    package static func removeStaleTemporaries(in directory: URL, for name: String? = nil, olderThan age: TimeInterval = 60) -> Int {
        // Listed and removed relative to the directory reached without following a
        // link below the root: a planted link never makes this remove files elsewhere.
        guard let opened = try? ContainedDirectory.open(directory.standardizedFileURL.path) else { return 0 }
        defer { opened.close() }
        var names: [String] = []
        let prefix = name.map { Array(temporaryPrefix(for: $0).utf8) }
        _ = try? Sys.forEachEntry(at: opened.fd, path: opened.path) { entry in
            // Byte prefix: a name that differs only in normalization is another file's.
            if isTemporaryName(entry) && (prefix.map { entry.utf8.starts(with: $0) } ?? true) { names.append(entry) }
        }
        let now = Date().timeIntervalSince1970
        var removed = 0
        for entry in names {
            let path = opened.path(of: entry)
            guard let st = try? Sys.lstat(at: opened.fd, entry, path: path), Sys.isRegular(st) else { continue }
            #if canImport(Darwin)
            let modified = Double(st.st_mtimespec.tv_sec)
            #else
            let modified = Double(st.st_mtim.tv_sec)
            #endif
            if now - modified >= age, (try? Sys.unlink(at: opened.fd, entry, path: path)) == true { removed += 1 }
        }
        return removed
    }

    private static func createTemporary(in directory: ContainedDirectory, for name: String) throws -> (name: String, path: String, fd: Int32) {
        let prefix = temporaryPrefix(for: name)
        while true {
            let temporary = prefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let path = directory.path(of: temporary)
            do {
                let fd = try Sys.open(at: directory.fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: Sys.fileMode, path: path)
                // O_CREAT applied the umask: files are 0600 whatever it is.
                try? Sys.fchmod(fd, Sys.fileMode, path: path)
                return (temporary, path, fd)
            } catch AppGroupError.systemCall(_, _, let code) where code == .EEXIST {
                continue
            }
        }
    }

    /// fsync(2) on a directory, so that a rename in it survives a crash.
    static func syncDirectory(_ path: String) throws {
        let fd = try Sys.open(path, O_RDONLY | O_DIRECTORY)
        defer { Sys.close(fd) }
        try Sys.fsync(fd, path: path)
    }

    /// fsync(2) of an open directory, with the same failure as the path form.
    static func syncDirectory(_ directory: ContainedDirectory, afterChanging changed: String) throws {
        do {
            try Sys.fsync(directory.fd, path: directory.path)
        } catch AppGroupError.systemCall(let operation, let path, let code) {
            throw AppGroupError.notDurable(path: changed, operation: "\(operation)(\(path))", errno: code)
        }
    }

    /// ``syncDirectory(_:)`` after `changed` was renamed or linked into place: a
    /// failure then is ``AppGroupError/notDurable(path:operation:errno:)``, never an
    /// error that would let a caller believe nothing changed (and repeat it).
    static func syncDirectory(_ path: String, afterChanging changed: String) throws {
        do {
            try syncDirectory(path)
        } catch AppGroupError.systemCall(let operation, let directory, let code) {
            throw AppGroupError.notDurable(path: changed, operation: "\(operation)(\(directory))", errno: code)
        }
    }
}
