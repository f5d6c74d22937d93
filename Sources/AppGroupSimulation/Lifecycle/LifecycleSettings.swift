import Foundation

/// How a device runs its targets' lifecycle; change it through
/// ``SimulatedDevice/lifecycleSettings``.
public struct LifecycleSettings: Sendable, Hashable {
    /// How long a background activity (`ProcessInfo.performExpiringActivity`,
    /// ``SimulatedDevice/beginBackgroundTask(for:withName:expirationHandler:)``) holds off
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
    /// Memory limits (bytes) by kind of target, as jetsam applies them. Apple
    /// publishes none; the defaults are developers' measurements: a share extension
    /// about 120 MB, a widget about 30 MB, a notification service extension about
    /// 24 MB; an app has no limit here (its limit depends on the device's RAM).
    public var memoryLimits: [SimulatedTarget.Kind: Int] = [
        .shareExtension: 120 << 20, .widget: 30 << 20, .notificationExtension: 24 << 20,
    ]
    /// Memory limits (bytes) of single targets, by bundle identifier; they win over ``memoryLimits``.
    public var memoryLimitsByBundleIdentifier: [String: Int] = [:]
    /// How limits are enforced: ``MemoryEnforcement/automatic`` uses a cgroup v2
    /// where one can be made, a sampling watchdog otherwise.
    public var memoryEnforcement = MemoryEnforcement.automatic
    /// How often the sampling watchdog reads each target's footprint (BENCHMARKS.md case 11 measures its cost).
    public var memorySamplingInterval: TimeInterval = 0.05

    public init() {}

    /// The memory limit of `target` in bytes, nil for none.
    public func memoryLimit(for target: SimulatedTarget) -> Int? {
        memoryLimitsByBundleIdentifier[target.bundleIdentifier] ?? memoryLimits[target.kind]
    }
}

/// How a device enforces its targets' memory limits.
public enum MemoryEnforcement: String, Sendable, Hashable {
    /// A cgroup v2 with `memory.max` per target where this process may make one
    /// (the kernel kills at the limit, exactly); the sampling watchdog otherwise.
    /// `APPGROUP_MEMORY_WATCHDOG=1` in the environment forces the watchdog.
    case automatic
    /// A thread that reads each target's footprint every
    /// ``LifecycleSettings/memorySamplingInterval`` and kills one over its limit:
    /// works everywhere, but a target may pass its limit between two samples.
    case samplingWatchdog
    /// No memory limits.
    case off
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
