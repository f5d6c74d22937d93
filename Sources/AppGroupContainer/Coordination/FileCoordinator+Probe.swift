import Foundation

extension FileCoordinator {
    /// Runs `body` holding the exclusive lock of `url` when nobody holds it, without
    /// waiting; nil when anyone does, this thread's or task's own coordinations
    /// included.
    ///
    /// For liveness probes ("is the drain that owns this lock still running?"): an
    /// ordinary coordination nested in an accessor runs at once on a lock the caller
    /// already holds, so a probe made from inside an accessor would find its own
    /// caller's lock free and take a live owner for a dead one.
    package func coordinateIfUnheld<T>(writingItemAt url: URL, _ body: (URL) throws -> T) throws -> T? {
        let item = try self.item(url, resolvingLinks: false)
        let stack = HeldLocks.threadStack
        if HeldLocks.mode(of: item.slot, in: stack) != nil { return nil }
        guard let lock = try FileLock.tryAcquire(item.slot, mode: .exclusive) else { return nil }
        stack.holds.append(HeldLocks.Hold(slot: item.slot, mode: .exclusive, owner: nil, token: nil))
        defer {
            stack.holds.removeLast()
            lock.release()
        }
        return try body(item.url)
    }
}
