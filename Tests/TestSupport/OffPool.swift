import Foundation

/// Runs a blocking test body (one that waits seconds for child processes) on a
/// thread of its own and awaits it, so the cooperative pool (two threads on two
/// cores) stays free for the async tests running beside it.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
