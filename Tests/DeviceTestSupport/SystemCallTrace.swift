// The seam exists in debug builds only; a release build of the package compiles
// this target too, without it.
#if DEBUG
import AppGroupContainer
import AppGroupSystem
import Foundation

/// Reading a `FaultInjection.trace`: where a call of interest stands, for the tests
/// of the order in which a save makes its calls.
package enum Trace {
    /// The position of the first call in `calls` that `match` accepts (Int.max when none).
    package static func first(_ calls: [FaultInjection.Entry], _ match: (FaultInjection.Entry) -> Bool) -> Int {
        calls.firstIndex(where: match) ?? Int.max
    }

    /// The position of the last call in `calls` that `match` accepts (-1 when none).
    package static func last(_ calls: [FaultInjection.Entry], _ match: (FaultInjection.Entry) -> Bool) -> Int {
        calls.lastIndex(where: match) ?? -1
    }

    package static func isTemporary(_ path: String) -> Bool { AtomicFile.isTemporaryName((path as NSString).lastPathComponent) }
}
#endif
