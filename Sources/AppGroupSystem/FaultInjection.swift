#if ENABLE_MOCKING
/// Where tests make system calls fail and watch them happen, in the manner of
/// swift-system's mocking layer. Debug builds only (`ENABLE_MOCKING`, set in
/// Package.swift): a release build has no hook at all.
///
/// Every raw call in `Syscalls.swift` asks ``intercept(_:_:)`` before it calls
/// libc, so a plan sits *below* the EINTR retry (it can inject EINTR and see the
/// retry) and every call is seen, whichever layer made it.
///
/// Plans and traces are bound to the current task (with a task-local; outside any
/// task, to the current thread), so tests running in parallel never see each
/// other's: a plan applies to the calls its own body makes, and to child tasks,
/// but not to threads the package starts (the directory watcher's, the coordinator's
/// async lock waits).
///
/// Package-wide: reached from tests, never from the package's products.
package enum FaultInjection {
    /// The raw calls, by the C function each one makes.
    package enum Call: String, Sendable, CaseIterable {
        case open, openat, close, read, write, pwrite, fsync, fdatasync
        case rename, renameat, link, unlink, unlinkat, rmdir, mkdir, chmod, fchmod
        case stat, lstat, fstat, fstatat, statx, readlink
        case opendir, fdopendir, readdir, closedir, dup
        case pipe, fcntl, poll, inotify_init1, inotify_add_watch, kill
        /// `agc_lock` taking a lock; ``unlock`` is its release.
        case lock, unlock
        /// The shared signal table: mapping it, sizing it, and the futex sleep and wake.
        case mmap, ftruncate, futex
    }

    /// Decides, per call and path, an errno to fail with (nil: make the real call).
    /// `path` is the file the call concerns ("" when none, such as pipe(2)).
    package typealias Plan = @Sendable (_ call: Call, _ path: String) -> Errno?

    /// One call seen by a trace: what, on which path, and the errno a plan injected
    /// instead of making it (nil: the real call was made).
    package struct Entry: Sendable, Hashable, CustomStringConvertible {
        package let call: Call
        package let path: String
        package let injected: Errno?

        package var description: String { "\(call.rawValue)(\(path))" + (injected.map { " -> injected \($0.name ?? "\($0.rawValue)")" } ?? "") }
    }

    /// The plans and traces in force for the current task, innermost last.
    private struct Scope: Sendable {
        var plans: [Plan] = []
        var traces: [Locked<[Entry]>] = []
    }

    @TaskLocal private static var scope: Scope?

    /// Runs `body` with `plan` deciding failures (inside any plan already in force,
    /// which it is asked after).
    package static func with<T>(_ plan: @escaping Plan, _ body: () throws -> T) rethrows -> T {
        var inner = scope ?? Scope()
        inner.plans.append(plan)
        return try $scope.withValue(inner, operation: body)
    }

    /// Runs `body` and returns the calls it made, in order (with its result).
    package static func trace<T>(_ body: () throws -> T) rethrows -> (calls: [Entry], result: T) {
        let calls = Locked<[Entry]>([])
        var inner = scope ?? Scope()
        inner.traces.append(calls)
        let result = try $scope.withValue(inner, operation: body)
        return (calls.withLock { $0 }, result)
    }

    /// Called by every raw call: records it in the traces in force and returns the
    /// errno to fail with, if a plan says so.
    @inline(__always)
    package static func intercept(_ call: Call, _ path: String) -> Errno? {
        guard let scope else { return nil }
        var injected: Errno?
        for plan in scope.plans.reversed() {
            if let code = plan(call, path) { injected = code; break }
        }
        for trace in scope.traces {
            trace.withLock { $0.append(Entry(call: call, path: path, injected: injected)) }
        }
        return injected
    }
}
#endif
