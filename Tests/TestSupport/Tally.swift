import Foundation

/// A tally shared by threads.
package final class Tally<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    package init(_ value: Value) { self.value = value }
    package func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
    package var current: Value { lock.withLock { value } }
}
