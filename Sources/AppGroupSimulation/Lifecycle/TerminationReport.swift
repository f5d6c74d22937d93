import Foundation

/// Why a target's process ended, as iOS names it in a crash report or in
/// MetricKit's exit counts.
public enum TerminationReason: Sendable, Hashable, CustomStringConvertible {
    /// `RUNNINGBOARD 0xdead10cc`: suspended while holding a file lock on a file
    /// outside its own data container (``SimulatedDevice/suspend(_:)``).
    case heldLockWhileSuspended
    /// Jetsam's per-process limit: the footprint (bytes) passed the target's limit (bytes).
    case memoryLimit(limit: Int, footprint: Int)
    /// Killed by jetsam without warning (``SimulatedDevice/jetsam(_:)``).
    case jetsam
    /// Terminated by the system after being told (`willTerminate`; ``SimulatedDevice/terminate(_:)``).
    case terminatedBySystem
    /// Ended because the device restarted or was switched off (``SimulatedDevice/reboot()``).
    case deviceRestarted
    /// Ended by a signal the device did not send: a crash (`EXC_CRASH`, `EXC_BAD_ACCESS`...) or a kill by someone else.
    case crash(signal: Int32)
    /// Exited by itself with this status.
    case exit(status: Int32)

    /// The exception or termination code iOS reports, when it has one.
    public var code: String? {
        switch self {
        case .heldLockWhileSuspended: return "0xdead10cc"
        case .memoryLimit, .jetsam: return "jetsam"
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .heldLockWhileSuspended: return "RUNNINGBOARD 0xdead10cc (suspended with locked files)"
        case .memoryLimit(let limit, let footprint):
            return "jetsam: per-process memory limit (footprint \(footprint / 1_048_576) MB over the limit of \(limit / 1_048_576) MB)"
        case .jetsam: return "jetsam: killed without warning"
        case .terminatedBySystem: return "terminated by the system (after willTerminate)"
        case .deviceRestarted: return "ended by a restart of the device"
        case .crash(let signal): return "crash: signal \(signal) (\(String(cString: strsignal(signal))))"
        case .exit(let status): return "exit with status \(status)"
        }
    }
}

/// A lock a process held when it was suspended or ended.
public struct HeldFileLock: Sendable, Hashable, CustomStringConvertible {
    /// The locked file.
    public let path: String
    /// `POSIX record lock`, `open-file-description lock` or `flock`.
    public let kind: String
    /// True for a write (exclusive) lock.
    public let exclusive: Bool
    /// The byte range, as the kernel lists it (`0-EOF`, `1073741825-1073741825`).
    public let range: String
    /// For a coordination lock file (`.coordination/<hash>.lock`), the item it
    /// protects, as the lock file's first line names it; nil for any other file.
    public let item: String?

    init(path: String, kind: String, exclusive: Bool, range: String, item: String? = nil) {
        self.path = path
        self.kind = kind
        self.exclusive = exclusive
        self.range = range
        self.item = item
    }

    /// `<item> (its lock file <path>: write lock, bytes 0-EOF)` for a coordinated
    /// item, `<path> (write lock, bytes 0-EOF)` for any other file.
    public var description: String {
        let lock = "\(exclusive ? "write" : "read") \(kind), bytes \(range)"
        guard let item else { return "\(path) (\(lock))" }
        return "\(item) (coordinated; its lock file \(path): \(lock))"
    }
}

/// One ending of a target's process that the device caused or saw.
public struct TerminationReport: Sendable, Hashable, CustomStringConvertible {
    /// The target it ran as.
    public let target: SimulatedTarget
    /// Its process id.
    public let processIdentifier: Int32
    /// Why it ended, as iOS names it.
    public let reason: TerminationReason
    /// The state it was in just before (suspended, in the background...).
    public let state: LifecycleState
    /// The locks that broke iOS's rule (for ``TerminationReason/heldLockWhileSuspended``),
    /// or every lock it held when the device looked.
    public let heldLocks: [HeldFileLock]
    /// Where iOS lets it hold locks while suspended: its own data container.
    public let allowedDirectories: [String]
    /// The last lines of its standard error.
    public let standardErrorTail: [String]
    /// When the device learned of the end.
    public let date: Date

    public var description: String {
        var text = "\(target.name) [\(processIdentifier)] (\(target.bundleIdentifier)) \(state): \(reason)"
        if !heldLocks.isEmpty {
            text += (reason == .heldLockWhileSuspended ? "\n  was suspended with locked files:\n" : "\n  held locks:\n") + heldLocks.map { "    \($0)" }.joined(separator: "\n")
            if !allowedDirectories.isEmpty {
                text += "\n  not in allowed directories:\n" + allowedDirectories.map { "    \($0)" }.joined(separator: "\n")
            }
        }
        if !standardErrorTail.isEmpty {
            text += "\n  last lines of its standard error:\n" + standardErrorTail.map { "    \($0)" }.joined(separator: "\n")
        }
        return text
    }
}
