import Foundation

/// How a device runs its targets' lifecycle; change it through
/// ``SimulatedDevice/lifecycleSettings``.
public struct LifecycleSettings: Sendable, Hashable {
    /// How long a background activity (`ProcessInfo.performExpiringActivity`,
    /// ``SimulatedDevice/beginBackgroundTask(for:expirationHandler:)``) holds off
    /// suspension before it expires. iOS gives about 30 seconds; tests shorten it.
    public var backgroundTimeLimit: TimeInterval = 30
    /// How long the device waits for a target to acknowledge a notification (its
    /// observers to return). iOS's watchdog allows about 5 s for
    /// `didEnterBackground`; the default is generous so that a loaded machine passes.
    public var acknowledgementTimeout: TimeInterval = 30
    /// How long the device waits for a new process to say it listens before it
    /// treats it as a program that does not link the package (python3, sh): such a
    /// process is suspended and ended, but told nothing.
    public var listenerGrace: TimeInterval = 5
    /// How long the device waits for the kernel to show a stop, a continue or an end.
    public var signalTimeout: TimeInterval = 30
    /// iOS's rule for locks held by a suspended process (<doc:TheLifecycle>).
    public var lockRule = SuspensionLockRule()

    public init() {}
}

/// What iOS (RunningBoard) does when a process it suspends holds file locks.
///
/// The rule, from Apple's documentation and what developers measured (sources in
/// <doc:TheLifecycle>): a lock on any file outside the process's own data
/// container ("not in allowed directories") gets the process killed with
/// `0xdead10cc`; a file in an App Group container is never allowed. The one
/// exception is a SQLite database in WAL mode, recognised by its header (iOS
/// reads "SQLite format 3" and the WAL version bytes): its locks, and those of its
/// `-shm` and `-wal` files, are let through.
public struct SuspensionLockRule: Sendable, Hashable {
    /// Lets a SQLite database in WAL mode (and its `-shm` and `-wal`) keep its locks
    /// while suspended, as iOS does. True by default.
    public var exemptsWALDatabases = true
    /// Also lets a WAL database's write lock (the exclusive lock on byte 120 of its
    /// `-shm`, held by an open write transaction) through. False by default: Apple
    /// documents no such exemption, and GRDB's guide advises suspending writes in
    /// every journal mode; set it to model the most lenient reading.
    public var exemptsWALWriteTransactions = false

    public init(exemptsWALDatabases: Bool = true, exemptsWALWriteTransactions: Bool = false) {
        self.exemptsWALDatabases = exemptsWALDatabases
        self.exemptsWALWriteTransactions = exemptsWALWriteTransactions
    }
}
