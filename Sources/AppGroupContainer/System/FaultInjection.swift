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

    private static let plan = Locked<Plan?>(nil)
    // A plain flag read without the mutex keeps the fast path to one load.
    nonisolated(unsafe) private static var active = false

    /// Runs `body` with `plan` deciding failures, then removes it.
    static func with<T>(_ newPlan: @escaping Plan, _ body: () throws -> T) rethrows -> T {
        plan.withLock { $0 = newPlan }
        active = true
        defer {
            active = false
            plan.withLock { $0 = nil }
        }
        return try body()
    }

    @inline(__always)
    static func errno(for call: Call, path: String) -> Int32? {
        guard active else { return nil }
        guard let current = plan.withLock({ $0 }) else { return nil }
        return current(call, path)
    }
}
