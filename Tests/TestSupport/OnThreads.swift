import Foundation

/// Runs `body(i)` on `count` plain threads at once (never the cooperative pool: the
/// bodies block on locks and child processes) and waits for them; false when they
/// did not all finish within `seconds` (a hang). `.infinity` waits as long as they run.
@discardableResult
package func onThreads(_ count: Int, timeout seconds: Double = 60, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            body(i)
            group.leave()
        }.start()
    }
    guard seconds.isFinite else {
        group.wait()
        return true
    }
    return group.wait(timeout: .now() + seconds) == .success
}
