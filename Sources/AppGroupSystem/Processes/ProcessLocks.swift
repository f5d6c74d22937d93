import Foundation

/// One advisory lock a process holds, as the kernel lists it.
package struct ProcessLock: Sendable, Hashable {
    /// The three kinds of advisory lock Linux has.
    package enum Kind: String, Sendable, Hashable {
        /// A POSIX record lock (`fcntl` F_SETLK, `lockf`; SQLite's): owned by the process.
        case posix = "POSIX record lock"
        /// An open-file-description lock (`fcntl` F_OFD_SETLK; the package's own).
        case openFileDescription = "open-file-description lock"
        /// A BSD lock (`flock`).
        case flock = "flock"
    }
    package let kind: Kind
    /// True for a write (exclusive) lock, false for a read (shared) one.
    package let exclusive: Bool
    /// The locked file, as `/proc/<pid>/fd/<fd>` names it.
    package let path: String
    /// The byte range: first byte, and last byte (nil: to the end of the file).
    package let start: UInt64
    package let end: UInt64?
    /// The descriptor it was found on (nil when found in `/proc/locks` only).
    package let descriptor: Int32?
    /// The file's identity, `major:minor:inode` as the kernel prints it.
    package let fileIdentity: String
}

/// Reads every lock a process holds: `/proc/<pid>/fdinfo/<fd>` lists, for each
/// open file description of the process, the locks it owns (all three kinds;
/// OFD locks show pid -1 in `/proc/locks`, so only here do they have an owner),
/// and `/proc/locks` lists POSIX locks by pid, which catches one taken through a
/// descriptor whose `fdinfo` is read as the process closes it. Both are read
/// while the process is stopped, so the answer is the state it was suspended in.
package enum ProcessLocks {
    /// The locks process `pid` holds (empty when it has ended or cannot be read).
    package static func held(by pid: pid_t) -> [ProcessLock] {
        var found: [ProcessLock] = []
        var pathByIdentity: [String: String] = [:]
        for name in ProcessSystemCalls.names(in: "/proc/\(pid)/fdinfo") {
            guard let fd = Int32(name), let info = ProcessSystemCalls.procText("/proc/\(pid)/fdinfo/\(name)", limit: 1 << 16),
                  let path = ProcessSystemCalls.linkTarget("/proc/\(pid)/fd/\(name)") else { continue }
            for line in info.split(separator: "\n") where line.hasPrefix("lock:") {
                guard let lock = parse(line.dropFirst("lock:".count), path: path, descriptor: fd) else { continue }
                pathByIdentity[lock.fileIdentity] = path
                found.append(lock)
            }
        }
        // POSIX locks of this pid that no fdinfo showed (same file, range and type are one lock).
        for line in (ProcessSystemCalls.procText("/proc/locks") ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[1] == "POSIX", fields[4] == "\(pid)" else { continue }
            guard let lock = parse(line.drop { $0 != ":" }.dropFirst(), path: "", descriptor: nil) else { continue }
            if found.contains(where: { $0.kind == .posix && $0.fileIdentity == lock.fileIdentity && $0.start == lock.start && $0.end == lock.end }) { continue }
            found.append(ProcessLock(kind: .posix, exclusive: lock.exclusive, path: pathByIdentity[lock.fileIdentity] ?? "inode \(lock.fileIdentity)",
                                     start: lock.start, end: lock.end, descriptor: nil, fileIdentity: lock.fileIdentity))
        }
        return found
    }

    /// One lock line: `1: POSIX  ADVISORY  WRITE 24318 fe:00:16220371 5 5` (a
    /// line with `->` is a waiter, not a holder).
    static func parse(_ line: Substring, path: String, descriptor: Int32?) -> ProcessLock? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard fields.count >= 7, !fields.contains("->") else { return nil }
        let kind: ProcessLock.Kind
        switch fields[1] {
        case "POSIX": kind = .posix
        case "OFDLCK": kind = .openFileDescription
        case "FLOCK": kind = .flock
        default: return nil
        }
        guard let start = UInt64(fields[6]) else { return nil }
        let end = fields.count > 7 ? UInt64(fields[7]) : nil
        return ProcessLock(kind: kind, exclusive: fields[3] == "WRITE", path: path, start: start, end: end,
                           descriptor: descriptor, fileIdentity: fields[5])
    }
}
