import Foundation

/// Coordinates reading and writing of files between threads and processes, in the
/// spirit of `NSFileCoordinator` (which Linux's Foundation lacks).
///
/// Readers share, writers exclude, across threads, tasks and processes alike: each
/// coordination takes an advisory lock on the item's lock file (see ``FileLock``
/// and README, "Locking protocol"). Keep accessors short: the lock is held for the
/// whole accessor, and a process suspended while holding it (iOS's 0xdead10cc) stalls
/// its peers. A ``timeout`` turns an endless wait into
/// ``AppGroupError/coordinationTimedOut(path:lockFile:seconds:)``.
///
/// Nesting: a coordination inside an accessor, on an item the current thread or
/// task already coordinates, runs at once without taking the lock again (the outer
/// one already excludes everyone else). Asking to write an item inside a read of
/// it throws ``AppGroupError/nestedCoordinationUpgrade(path:)`` instead of
/// waiting for itself forever.
public struct FileCoordinator: Sendable {
    /// How long to wait for other holders, in seconds; nil waits as long as it takes.
    public var timeout: TimeInterval?

    /// - Parameter timeout: seconds to wait for a lock before failing; nil for no limit.
    public init(timeout: TimeInterval? = nil) {
        self.timeout = timeout
    }

    /// Options for coordinated reading, named as `NSFileCoordinator.ReadingOptions`.
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Apple: do not ask file presenters to save first. There are no presenters
        /// here, so every read is already "without changes"; accepted and ignored.
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// Coordinate, and pass to the accessor, the target of a symbolic link
        /// rather than the link itself.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Apple: only metadata that is at hand is needed. Takes the same shared lock.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// Apple: make an uploadable copy of a package. Not meaningful here; ignored.
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// Options for coordinated writing, named as `NSFileCoordinator.WritingOptions`.
    /// Every writing option takes the same exclusive lock; they record intent.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The accessor deletes the item.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The accessor moves the item; coordinate the destination too (pair form).
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// The accessor merges new content into the existing item.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// The accessor replaces the item whole (an atomic save).
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Only metadata that does not depend on the content changes.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    // MARK: Synchronous forms

    /// Runs `reader` while holding a shared lock on `url`: other readers may run at
    /// the same time, writers wait.
    public func coordinate<T>(readingItemAt url: URL, options: ReadingOptions = [],
                              byAccessor reader: (URL) throws -> T) throws -> T {
        let item = try Self.item(url, resolvingLinks: options.contains(.resolvesSymbolicLink))
        return try withLocks([(item, .shared)]) { try reader(item) }
    }

    /// Runs `writer` while holding an exclusive lock on `url`: every other reader
    /// and writer, in any thread or process, waits.
    public func coordinate<T>(writingItemAt url: URL, options: WritingOptions = [],
                              byAccessor writer: (URL) throws -> T) throws -> T {
        let item = try Self.item(url, resolvingLinks: false)
        return try withLocks([(item, .exclusive)]) { try writer(item) }
    }

    /// Reads one item and writes another under one coordination (both locks are
    /// taken in the fixed order, so two processes locking a pair in opposite order
    /// cannot deadlock). The same item in both roles is locked once, for writing.
    public func coordinate<T>(readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
                              writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
                              byAccessor accessor: (URL, URL) throws -> T) throws -> T {
        let reading = try Self.item(readingURL, resolvingLinks: readingOptions.contains(.resolvesSymbolicLink))
        let writing = try Self.item(writingURL, resolvingLinks: false)
        return try withLocks([(reading, .shared), (writing, .exclusive)]) { try accessor(reading, writing) }
    }

    /// Writes two items under one coordination, as for a move (`forMoving` on the
    /// source, `forReplacing` on the destination). Locks are taken in the fixed order.
    public func coordinate<T>(writingItemAt url1: URL, options options1: WritingOptions = [],
                              writingItemAt url2: URL, options options2: WritingOptions = [],
                              byAccessor accessor: (URL, URL) throws -> T) throws -> T {
        let first = try Self.item(url1, resolvingLinks: false)
        let second = try Self.item(url2, resolvingLinks: false)
        return try withLocks([(first, .exclusive), (second, .exclusive)]) { try accessor(first, second) }
    }

    // MARK: Asynchronous forms

    /// The async form of ``coordinate(readingItemAt:options:byAccessor:)``: a wait
    /// for the lock happens on a thread of its own, never on the cooperative pool.
    public func coordinate<T: Sendable>(readingItemAt url: URL, options: ReadingOptions = [],
                                        byAccessor reader: (URL) async throws -> T) async throws -> T {
        let item = try Self.item(url, resolvingLinks: options.contains(.resolvesSymbolicLink))
        return try await withLocks([(item, .shared)]) { try await reader(item) }
    }

    /// The async form of ``coordinate(writingItemAt:options:byAccessor:)``.
    public func coordinate<T: Sendable>(writingItemAt url: URL, options: WritingOptions = [],
                                        byAccessor writer: (URL) async throws -> T) async throws -> T {
        let item = try Self.item(url, resolvingLinks: false)
        return try await withLocks([(item, .exclusive)]) { try await writer(item) }
    }

    /// The lock file that guards `item` (`<dir>/.<name>.lock`): what another
    /// program locks to take part in the protocol.
    public static func lockFileURL(for item: URL) throws -> URL {
        URL(fileURLWithPath: try FileLock.lockPath(for: item))
    }

    // MARK: Machinery

    /// The lock files this thread or task holds, and how. Task-local values fall
    /// back to thread-local storage outside a task, so one table serves both.
    @TaskLocal static var held: [String: FileLock.Mode] = [:]

    private struct Plan {
        var steps: [(path: String, mode: FileLock.Mode, item: String)] = []
        var holds: [String: FileLock.Mode]
    }

    private func plan(_ requests: [(URL, FileLock.Mode)]) throws -> Plan {
        var wanted: [String: (FileLock.Mode, String)] = [:]
        for (url, mode) in requests {
            let path = try FileLock.lockPath(for: url)
            let previous = wanted[path]?.0
            wanted[path] = (previous == .exclusive ? .exclusive : mode, url.path)
        }
        var plan = Plan(holds: Self.held)
        // One fixed order for everyone: ascending bytes of the lock-file path.
        for (path, (mode, item)) in wanted.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            switch (Self.held[path], mode) {
            case (.exclusive?, _), (.shared?, .shared):
                continue // already held strongly enough by this thread or task
            case (.shared?, .exclusive):
                throw AppGroupError.nestedCoordinationUpgrade(path: item)
            case (nil, _):
                plan.steps.append((path, mode, item))
                plan.holds[path] = mode
            }
        }
        return plan
    }

    private func withLocks<T>(_ requests: [(URL, FileLock.Mode)], _ body: () throws -> T) throws -> T {
        let plan = try plan(requests)
        var locks: [FileLock] = []
        defer { for lock in locks.reversed() { lock.release() } }
        for step in plan.steps {
            locks.append(try FileLock.acquire(step.path, mode: step.mode, timeout: timeout, itemPath: step.item))
        }
        return try Self.$held.withValue(plan.holds) { try body() }
    }

    private func withLocks<T: Sendable>(_ requests: [(URL, FileLock.Mode)], _ body: () async throws -> T) async throws -> T {
        let plan = try plan(requests)
        var locks: [FileLock] = []
        defer { for lock in locks.reversed() { lock.release() } }
        for step in plan.steps {
            if let lock = try FileLock.tryAcquire(step.path, mode: step.mode) {
                locks.append(lock)
                continue
            }
            // Contended: wait on a dedicated thread so the cooperative pool stays free.
            let timeout = self.timeout
            let lock = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FileLock, Error>) in
                let thread = Thread {
                    continuation.resume(with: Result {
                        try FileLock.acquire(step.path, mode: step.mode, timeout: timeout, itemPath: step.item)
                    })
                }
                thread.name = "FileCoordinator wait"
                thread.start()
            }
            locks.append(lock)
        }
        return try await Self.$held.withValue(plan.holds) { try await body() }
    }

    /// The item URL the accessor receives: standardized, with a symbolic link
    /// resolved when asked.
    static func item(_ url: URL, resolvingLinks: Bool) throws -> URL {
        guard url.isFileURL else {
            throw AppGroupError.unsafePath(path: url.absoluteString, problem: "only file URLs can be coordinated")
        }
        if url.path.utf8.contains(0) {
            throw AppGroupError.unsafePath(path: url.path, problem: "the path contains a NUL byte")
        }
        let standardized = url.standardizedFileURL
        return resolvingLinks ? standardized.resolvingSymlinksInPath() : standardized
    }
}
