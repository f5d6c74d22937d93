import Foundation

/// Polls `condition` until it holds or `seconds` pass (a liveness deadline, not a timing assertion).
package func eventually(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// ``eventually(seconds:_:)`` for async tests: sleeps between polls instead of
/// blocking a thread of the cooperative pool.
package func waitUntil(seconds: Double, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return try condition()
}
