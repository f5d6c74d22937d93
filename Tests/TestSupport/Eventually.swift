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
