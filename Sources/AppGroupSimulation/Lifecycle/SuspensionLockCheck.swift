import AppGroupSystem
import Foundation

/// Applies iOS's rule (``SuspensionLockRule``) to the locks a stopped process holds.
enum SuspensionLockCheck {
    /// The locks of `pid` that break the rule: on files under `deviceRoot` (every
    /// App Group container and every other target's data container of the
    /// device) outside `home` (the target's own data container, where iOS lets it
    /// keep locks), less the SQLite WAL exemption.
    static func violations(of pid: Int32, deviceRoot: String, home: String, rule: SuspensionLockRule) -> [HeldFileLock] {
        ProcessLocks.held(by: pid).compactMap { lock in
            guard isInside(lock.path, deviceRoot), !isInside(lock.path, home) else { return nil }
            if rule.exemptsWALDatabases, let database = walDatabase(for: lock.path) {
                let isWriteLock = lock.exclusive && lock.path == database + "-shm" && lock.start <= 120 && (lock.end ?? .max) >= 120
                if !isWriteLock || rule.exemptsWALWriteTransactions { return nil }
            }
            return held(lock)
        }
    }

    /// Every lock `pid` holds, for a report.
    static func all(of pid: Int32) -> [HeldFileLock] { ProcessLocks.held(by: pid).map(held) }

    static func held(_ lock: ProcessLock) -> HeldFileLock {
        HeldFileLock(path: lock.path, kind: lock.kind.rawValue, exclusive: lock.exclusive,
                     range: "\(lock.start)-\(lock.end.map(String.init) ?? "EOF")", item: coordinatedItem(of: lock.path))
    }

    /// The item a coordination lock file protects: the package writes the item's
    /// key (its path relative to the directory holding the tree, or an absolute
    /// one in a private tree) and a newline into each lock file it makes
    /// (LockingProtocol.md). Read only from `<...>/.coordination/<32 hex>.lock`, at
    /// most 4 KiB, never following a link or waiting on a FIFO; the name is a label
    /// in a report, so what a target wrote there can mislead only the reader.
    static func coordinatedItem(of path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[parts.count - 2] == ".coordination" else { return nil }
        let name = parts[parts.count - 1]
        guard name.hasSuffix(".lock"), name.count == 37, name.dropLast(5).allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        guard let head = ProcessSystemCalls.head(of: path, maximum: 4_096),
              let newline = head.firstIndex(of: UInt8(ascii: "\n")),
              let key = String(data: head[head.startIndex..<newline], encoding: .utf8),
              !key.isEmpty, !key.contains(where: { $0.isNewline || $0 == "\0" }),
              !key.split(separator: "/").contains("..") else { return nil }
        if key.hasPrefix("/") { return key }
        return parts.dropLast(2).joined(separator: "/") + "/" + key
    }

    static func isInside(_ path: String, _ directory: String) -> Bool {
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return path == base || path.hasPrefix(base + "/")
    }

    /// The database `path` belongs to when that database is in WAL mode, as iOS
    /// tells: its first 16 bytes are "SQLite format 3\0" and its file-format
    /// read and write versions (bytes 18 and 19) are 2 (sqlite.org/fileformat2.html).
    /// `path` is the database itself, or its `-shm` or `-wal`.
    static func walDatabase(for path: String) -> String? {
        var database = path
        for suffix in ["-shm", "-wal"] where path.hasSuffix(suffix) { database = String(path.dropLast(suffix.count)) }
        // Never waits on a FIFO nor follows a link a target planted under that name.
        guard let header = ProcessSystemCalls.prefix(of: database, count: 20) else { return nil }
        let magic = Data("SQLite format 3".utf8) + Data([0])
        guard header.prefix(16) == magic, header[header.startIndex + 18] == 2, header[header.startIndex + 19] == 2 else { return nil }
        return database
    }
}
