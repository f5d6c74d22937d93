import Foundation

/// A value guarded by a mutex, for the little process-wide state the package keeps
/// (the lock-descriptor pool, the per-thread coordination table, traces of system calls),
/// and that AppGroupSimulation keeps about devices and tests.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
