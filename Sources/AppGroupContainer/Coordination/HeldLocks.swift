#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CAppGroupSys
import Foundation
import AppGroupSystem

/// Which lock files the current thread or task holds, so that a coordination
/// nested in an accessor does not wait for itself.
///
/// Synchronous accessors record their locks in a per-thread stack: a thread runs
/// one synchronous accessor at a time and no other thread or task can see its
/// stack, so a task started inside an accessor (which runs elsewhere, or later)
/// locks like any other holder. Asynchronous accessors may hop threads, so they
/// record theirs in a task-local list, which child and unstructured tasks
/// inherit: each entry therefore names its owner task and ends with its hold.
enum HeldLocks {
    struct Hold: Sendable {
        let slot: LockSlot
        let mode: FileLock.Mode
        /// The task that took it (async holds only).
        let owner: Int?
        /// Ends with the hold, so a task that inherited the entry (and a later
        /// task at the same address) never takes it for its own.
        let token: Token?

        /// Same lock file. Slots are shared per item, but the slot table may start
        /// afresh, so equal paths count too: equal bytes, never canonically equal
        /// Strings (".../caf\u{E9}" and ".../cafe\u{301}" are two files).
        func guards(_ other: LockSlot) -> Bool { slot === other || ExactPath.same(slot.lockPath, other.lockPath) }
    }

    final class Token: Sendable {
        private let active = Locked(true)
        var isActive: Bool { active.withLock { $0 } }

        init() { _ = agc_atomic_add32(HeldLocks.activeTokens, 1) }

        // Ends it if its hold did not (it always does): the count must not stay up.
        deinit { end() }

        func end() {
            let ended = active.withLock { active in
                defer { active = false }
                return active
            }
            if ended { _ = agc_atomic_sub32(HeldLocks.activeTokens, 1) }
        }
    }

    /// Tokens not yet ended, in the whole process: while none is, no task holds a
    /// lock through an asynchronous accessor, and a lookup skips the task-local
    /// list (reading a task-local costs an uncontended synchronous coordination
    /// noticeably). Allocated once, never freed: a stable address for
    /// the atomics.
    nonisolated(unsafe) static let activeTokens: UnsafeMutablePointer<UInt32> = {
        let word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        word.initialize(to: 0)
        return word
    }()

    /// The holds of synchronous accessors on this thread, innermost last, and the
    /// item this thread coordinated last (see `FileCoordinator.item`). Only its own
    /// thread reads or writes it.
    final class ThreadStack {
        // Unchecked: only its own thread touches a stack, so the runtime's
        // exclusivity bookkeeping (three accesses a coordination) guards nothing.
        @exclusivity(unchecked) var holds: [Hold] = []
        @exclusivity(unchecked) var lastItem: LastItem?
    }

    /// An item a thread found in the slot table: the URL's string as given (no
    /// base), its percent-encoded path, where its lock files are, its slot.
    struct LastItem {
        let url: String
        let path: String
        let lockFiles: FileCoordinator.LockFiles
        let slot: LockSlot
    }

    /// The holds of asynchronous accessors in this task (filtered by owner).
    @TaskLocal static var taskHolds: [Hold] = []

    /// This thread's stack, made on first use and freed with the thread.
    static var threadStack: ThreadStack {
        if let pointer = pthread_getspecific(stackKey) {
            return Unmanaged<ThreadStack>.fromOpaque(pointer).takeUnretainedValue()
        }
        let stack = ThreadStack()
        pthread_setspecific(stackKey, Unmanaged.passRetained(stack).toOpaque())
        return stack
    }

    private static let stackKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            let opaque: UnsafeMutableRawPointer? = pointer // optional on Glibc, not on Darwin
            guard let opaque else { return }
            Unmanaged<ThreadStack>.fromOpaque(opaque).release()
        }
        return key
    }()

    /// The current task's identity, nil outside any task.
    static var currentTask: Int? {
        withUnsafeCurrentTask { task in task.map { $0.hashValue } }
    }

    /// How the current thread or task already holds `slot`, if it does.
    static func mode(of slot: LockSlot, in stack: ThreadStack) -> FileLock.Mode? {
        if let hold = stack.holds.last(where: { $0.guards(slot) }) { return hold.mode }
        guard agc_atomic_load32(activeTokens) > 0 else { return nil }
        let inherited = taskHolds
        if inherited.isEmpty { return nil }
        let task = currentTask
        return inherited.last(where: { $0.owner == task && $0.token?.isActive == true && $0.guards(slot) })?.mode
    }
}
