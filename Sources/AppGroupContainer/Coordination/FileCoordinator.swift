import Foundation
import AppGroupSystem

/// Coordinates reading and writing of files between threads and processes, in the
/// spirit of `NSFileCoordinator` (which Linux's Foundation lacks).
///
/// Readers share, writers exclude, across threads, tasks and processes alike: each
/// coordination takes an advisory lock on the item's lock file (see `FileLock`
/// and <doc:LockingProtocol>). Keep accessors short: the lock is held for the
/// whole accessor, and a process suspended while holding it (iOS's 0xdead10cc) stalls
/// its peers. A ``timeout`` turns an endless wait into
/// ``AppGroupError/coordinationTimedOut(path:lockFile:seconds:)``.
///
/// Nesting: a coordination inside an accessor, on an item the current thread or
/// task already coordinates, runs at once without taking the lock again (the outer
/// one already excludes everyone else). Asking to write an item inside a read of
/// it throws ``AppGroupError/nestedCoordinationUpgrade(path:)`` instead of
/// waiting for itself forever. Re-entrancy belongs to that thread or task alone:
/// a task started inside an accessor (child or unstructured) waits like any other
/// holder, so it cannot slip in beside the accessor or after it. A task that the
/// accessor awaits must therefore not coordinate the same item (it would wait for
/// its parent, as with NSFileCoordinator on another thread); give it a ``timeout``.
package struct FileCoordinator: Sendable {
    /// How long to wait for other holders, in seconds; nil waits as long as it takes.
    package var timeout: TimeInterval?
    /// Where the lock files of the items this coordinator locks are.
    package var lockFiles: LockFiles = .inCoordinationTree

    /// Where a coordinator keeps the lock files of the items it locks.
    package enum LockFiles: Sendable, Hashable {
        /// In the items' coordination tree (<doc:LockingProtocol>, section 1): what
        /// every participant does, and the only choice for items other code may
        /// coordinate.
        case inCoordinationTree
        /// Beside each item, `<dir>/.<name>.lock`, with the item's directory reached
        /// from `root` without following a link: for a store's own directories,
        /// whose lock files must be found by listing the directory (a share inbox's
        /// `Claims/`: a drain killed before making its session directory leaves
        /// only its lock file there). Every process that coordinates such items
        /// uses a coordinator made the same way.
        case besideItems(below: ContainerRoot?)

        var isBeside: Bool { if case .besideItems = self { return true } else { return false } }
    }

    /// - Parameter timeout: seconds to wait for a lock before failing; nil for no limit.
    package init(timeout: TimeInterval? = nil) {
        self.timeout = timeout
    }

    /// A coordinator whose lock files are where `lockFiles` says.
    package init(timeout: TimeInterval? = nil, lockFiles: LockFiles) {
        self.timeout = timeout
        self.lockFiles = lockFiles
    }

    // MARK: Synchronous forms

    /// Runs `reader` while holding a shared lock on `url`: other readers may run at
    /// the same time, writers wait.
    package func coordinate<T>(readingItemAt url: URL, options: ReadingOptions = [],
                              byAccessor reader: (URL) throws -> T) throws -> T {
        let span = Tracing.begin(.coordinatedRead)?.opened(url.path, [("by", "FileCoordinator")])
        defer { span?.end(url.path, [("by", "FileCoordinator")]) }
        let item = try self.item(url, resolvingLinks: options.contains(.resolvesSymbolicLink))
        return try withLock(item, .shared) { try reader(item.url) }
    }

    /// Runs `writer` while holding an exclusive lock on `url`: every other reader
    /// and writer, in any thread or process, waits.
    package func coordinate<T>(writingItemAt url: URL, options: WritingOptions = [],
                              byAccessor writer: (URL) throws -> T) throws -> T {
        let span = Tracing.begin(.coordinatedWrite)?.opened(url.path, [("by", "FileCoordinator")])
        defer { span?.end(url.path, [("by", "FileCoordinator")]) }
        let item = try self.item(url, resolvingLinks: false)
        return try withLock(item, .exclusive) {
            let result = try writer(item.url)
            if options.contains(.forDeleting) { Self.removeLockFile(ofDeleted: item) }
            return result
        }
    }

    /// Reads one item and writes another under one coordination (both locks are
    /// taken in the fixed order, so two processes locking a pair in opposite order
    /// cannot deadlock). The same item in both roles is locked once, for writing.
    package func coordinate<T>(readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
                              writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
                              byAccessor accessor: (URL, URL) throws -> T) throws -> T {
        let reading = try item(readingURL, resolvingLinks: readingOptions.contains(.resolvesSymbolicLink))
        let writing = try item(writingURL, resolvingLinks: false)
        return try withLocks([(reading, .shared), (writing, .exclusive)]) { try accessor(reading.url, writing.url) }
    }

    /// Writes two items under one coordination, as for a move (`forMoving` on the
    /// source, `forReplacing` on the destination). Locks are taken in the fixed order.
    package func coordinate<T>(writingItemAt url1: URL, options options1: WritingOptions = [],
                              writingItemAt url2: URL, options options2: WritingOptions = [],
                              byAccessor accessor: (URL, URL) throws -> T) throws -> T {
        let first = try item(url1, resolvingLinks: false)
        let second = try item(url2, resolvingLinks: false)
        return try withLocks([(first, .exclusive), (second, .exclusive)]) { try accessor(first.url, second.url) }
    }

    // MARK: Asynchronous forms

    /// The async form of ``coordinate(readingItemAt:options:byAccessor:)``: a wait
    /// for the lock happens on a thread of its own, never on the cooperative pool.
    package func coordinate<T: Sendable>(readingItemAt url: URL, options: ReadingOptions = [],
                                        byAccessor reader: (URL) async throws -> T) async throws -> T {
        let span = Tracing.begin(.coordinatedRead)?.opened(url.path, [("by", "FileCoordinator async")])
        defer { span?.end(url.path, [("by", "FileCoordinator async")]) }
        let item = try self.item(url, resolvingLinks: options.contains(.resolvesSymbolicLink))
        return try await withLocks([(item, .shared)]) { try await reader(item.url) }
    }

    /// The async form of ``coordinate(writingItemAt:options:byAccessor:)``.
    package func coordinate<T: Sendable>(writingItemAt url: URL, options: WritingOptions = [],
                                        byAccessor writer: (URL) async throws -> T) async throws -> T {
        let span = Tracing.begin(.coordinatedWrite)?.opened(url.path, [("by", "FileCoordinator async")])
        defer { span?.end(url.path, [("by", "FileCoordinator async")]) }
        let item = try self.item(url, resolvingLinks: false)
        return try await withLocks([(item, .exclusive)]) {
            let result = try await writer(item.url)
            if options.contains(.forDeleting) { Self.removeLockFile(ofDeleted: item) }
            return result
        }
    }

    /// The lock file that guards `item`, in its coordination tree: the device
    /// root's `.coordination/<hash>.lock`, or the user's private tree for an item
    /// under no device root (<doc:LockingProtocol>, section 1). What another
    /// program locks to take part in the protocol; nothing is made by asking.
    package static func lockFileURL(for item: URL) throws(AppGroupError) -> URL {
        try FileCoordinator().lockFile(for: item)
    }

    /// The lock file that guards `item` for this coordinator (see ``lockFiles``),
    /// where the protocol's search finds it now.
    package func lockFile(for item: URL) throws(AppGroupError) -> URL {
        URL(fileURLWithPath: try self.item(item, resolvingLinks: false).slot.revalidated().lockPath)
    }

    // MARK: Machinery

    /// An item ready to coordinate: the URL the accessor gets, its path, its lock file.
    package struct Item {
        package let url: URL
        package let path: String
        let slot: LockSlot
        package var lockPath: String { slot.lockPath }
    }

    struct Step {
        let slot: LockSlot
        let mode: FileLock.Mode
        let itemPath: String
        var lockPath: String { slot.lockPath }
    }

    /// The locks to take for `requests`, in the fixed order, leaving out those the
    /// current thread or task already holds strongly enough.
    func plan(_ requests: [(Item, FileLock.Mode)], stack: HeldLocks.ThreadStack) throws(AppGroupError) -> [Step] {
        var wanted: [Step] = []
        wanted.reserveCapacity(requests.count)
        for (item, mode) in requests {
            if let i = wanted.firstIndex(where: { ExactPath.same($0.lockPath, item.lockPath) }) {
                if mode == .exclusive { wanted[i] = Step(slot: item.slot, mode: .exclusive, itemPath: item.path) }
            } else {
                wanted.append(Step(slot: item.slot, mode: mode, itemPath: item.path))
            }
        }
        // One fixed order for everyone: ascending bytes of the lock-file path.
        if wanted.count > 1 { wanted.sort { $0.lockPath.utf8.lexicographicallyPrecedes($1.lockPath.utf8) } }
        var steps: [Step] = []
        for step in wanted {
            switch (HeldLocks.mode(of: step.slot, in: stack), step.mode) {
            case (.exclusive?, _), (.shared?, .shared):
                continue // already held strongly enough by this thread or task
            case (.shared?, .exclusive):
                throw .nestedCoordinationUpgrade(path: step.itemPath)
            case (nil, _):
                steps.append(step)
            }
        }
        return steps
    }

    /// The one-item case of ``withLocks(_:_:)``, without its lists: the hot path.
    private func withLock<T>(_ item: Item, _ mode: FileLock.Mode, _ body: () throws -> T) throws -> T {
        let stack = HeldLocks.threadStack
        if let held = HeldLocks.mode(of: item.slot, in: stack) {
            if held == .shared && mode == .exclusive { throw AppGroupError.nestedCoordinationUpgrade(path: item.path) }
            return try body() // already held strongly enough by this thread or task
        }
        let lock = try FileLock.acquire(item.slot, mode: mode, timeout: timeout, itemPath: item.path)
        stack.holds.append(HeldLocks.Hold(slot: item.slot, mode: mode, owner: nil, token: nil))
        defer {
            stack.holds.removeLast()
            lock.release()
        }
        return try body()
    }

    private func withLocks<T>(_ requests: [(Item, FileLock.Mode)], _ body: () throws -> T) throws -> T {
        let stack = HeldLocks.threadStack
        var locks: [FileLock] = []
        defer {
            stack.holds.removeLast(locks.count)
            for lock in locks.reversed() { lock.release() }
        }
        var ordered = false
        while !ordered {
            let steps = try plan(requests, stack: stack)
            locks.reserveCapacity(steps.count)
            ordered = true
            for step in steps {
                let lock = try FileLock.acquire(step.slot, mode: step.mode, timeout: timeout, itemPath: step.itemPath)
                locks.append(lock)
                stack.holds.append(HeldLocks.Hold(slot: step.slot, mode: step.mode, owner: nil, token: nil))
                // A lock file that moved may now sort elsewhere: all again, in the
                // order of where they are, so that no two holders deadlock.
                if lock.relocated && steps.count > 1 { ordered = false; break }
            }
            if !ordered {
                stack.holds.removeLast(locks.count)
                for lock in locks.reversed() { lock.release() }
                locks.removeAll()
            }
        }
        return try body()
    }

    private func withLocks<T: Sendable>(_ requests: [(Item, FileLock.Mode)], _ body: () async throws -> T) async throws -> T {
        var steps = try plan(requests, stack: HeldLocks.threadStack)
        if steps.isEmpty { return try await body() }
        var locks: [FileLock] = []
        let token = HeldLocks.Token()
        defer {
            token.end()
            for lock in locks.reversed() { lock.release() }
        }
        var next = 0
        while next < steps.count {
            let step = steps[next]
            next += 1
            let lock: FileLock
            if let taken = try FileLock.tryAcquire(step.slot, mode: step.mode) {
                lock = taken
            } else {
                // Contended: wait on a dedicated thread so the cooperative pool stays free.
                let timeout = self.timeout
                lock = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FileLock, Error>) in
                    let thread = Thread {
                        continuation.resume(with: Result {
                            // The try above was the exploring scheduler's step for this lock.
                            try FileLock.acquire(step.slot, mode: step.mode, timeout: timeout, itemPath: step.itemPath, asking: false)
                        })
                    }
                    thread.name = "FileCoordinator wait"
                    thread.start()
                }
            }
            locks.append(lock)
            if lock.relocated && steps.count > 1 {
                // A lock file that moved may now sort elsewhere: all again, in the
                // order of where they are, so that no two holders deadlock.
                for lock in locks.reversed() { lock.release() }
                locks.removeAll()
                steps = try plan(requests, stack: HeldLocks.threadStack)
                next = 0
            }
        }
        let owner = HeldLocks.currentTask
        let mine = HeldLocks.taskHolds.filter { $0.owner == owner && $0.token?.isActive == true }
            + steps.map { HeldLocks.Hold(slot: $0.slot, mode: $0.mode, owner: owner, token: token) }
        return try await HeldLocks.$taskHolds.withValue(mine) { try await body() }
    }

    /// Validates `url` and finds its lock file: standardized, with a symbolic link
    /// resolved when asked.
    package func item(_ url: URL, resolvingLinks: Bool) throws(AppGroupError) -> Item {
        guard url.isFileURL else {
            throw .unsafePath(path: url.absoluteString, problem: "only file URLs can be coordinated")
        }
        // The item this thread coordinated last, again (a suite's writes): the same
        // URL string byte for byte, so the same path and slot, without making the
        // path or hashing it into the table (a large share of an uncontended
        // coordination). Only what the table gave is remembered.
        let stack = resolvingLinks ? nil : HeldLocks.threadStack
        if let last = stack?.lastItem, url.baseURL == nil, last.lockFiles == lockFiles, ExactPath.same(last.url, url.relativeString) {
            return Item(url: url, path: last.path, slot: last.slot)
        }
        // The percent-encoded path is stored as is; decoding it costs more than the
        // lock itself, so decode only when there is something to decode.
        let encoded = url.path(percentEncoded: true)
        if let stack, let slot = LockSlots.cached(encoded, lockFiles: lockFiles) {
            if url.baseURL == nil { stack.lastItem = HeldLocks.LastItem(url: url.relativeString, path: encoded, lockFiles: lockFiles, slot: slot) }
            return Item(url: url, path: encoded, slot: slot) // seen before: already validated
        }
        var scan = PathScan(encoded)
        let path = scan.hasPercent ? url.path : encoded
        if scan.hasPercent { scan = PathScan(path) }
        if scan.hasNUL {
            throw .unsafePath(path: path, problem: "the path contains a NUL byte")
        }
        let standardized: URL
        if resolvingLinks {
            standardized = url.standardizedFileURL.resolvingSymlinksInPath()
        } else if scan.isStandardAbsolute {
            // Standardizing a URL is slow in Foundation; most paths need none of it.
            return Item(url: url, path: path, slot: try LockSlots.slot(forStandardizedPath: path, lockFiles: lockFiles))
        } else {
            standardized = url.standardizedFileURL
        }
        let standardPath = standardized.path
        return Item(url: standardized, path: standardPath, slot: try LockSlots.slot(forStandardizedPath: standardPath, lockFiles: lockFiles))
    }
}
