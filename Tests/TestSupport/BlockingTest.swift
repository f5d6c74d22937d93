import Foundation

/// Runs a blocking test body with a fresh temporary directory on a thread of its
/// own (``offPool(_:)``), so that its waits do not hold a cooperative thread.
package func blockingInTemporaryDirectory(_ body: @escaping @Sendable (URL) throws -> Void) async throws {
    try await offPool { try withTemporaryDirectory(body) }
}
