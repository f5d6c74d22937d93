import Foundation

/// The seam where tests make system calls fail, in the manner of swift-system's
/// mocking layer: every wrapper in ``Sys`` asks this plan first.
///
/// Internal: reached from tests through `@testable import`.
enum FaultInjection {
    /// The system calls a plan can fail.
    enum Call: String, Sendable, CaseIterable {
        case open, write, read, fsync, rename, unlink, mkdir, lock, fstat, stat
    }

    /// Decides, per call and path, an errno to fail with (nil: run the real call).
    typealias Plan = @Sendable (_ call: Call, _ path: String) -> Int32?

    /// Plans installed by `with`, by token: tests running in parallel may each have
    /// one (scoped by path to their own directories).
    private static let plans = Locked<[UInt64: Plan]>([:])
    private static let nextToken = Locked<UInt64>(0)
    // A plain flag read without the mutex keeps the fast path to one load.
    nonisolated(unsafe) private static var active = false

    /// Runs `body` with `plan` deciding failures (beside any other plan installed),
    /// then removes it.
    static func with<T>(_ plan: @escaping Plan, _ body: () throws -> T) rethrows -> T {
        let token = nextToken.withLock { value -> UInt64 in
            value += 1
            return value
        }
        plans.withLock { plans in
            plans[token] = plan
            active = true
        }
        defer {
            plans.withLock { plans in
                plans[token] = nil
                active = !plans.isEmpty
            }
        }
        return try body()
    }

    @inline(__always)
    static func errno(for call: Call, path: String) -> Int32? {
        guard active else { return nil }
        let current = plans.withLock { Array($0.values) }
        for plan in current {
            if let code = plan(call, path) { return code }
        }
        return nil
    }
}
