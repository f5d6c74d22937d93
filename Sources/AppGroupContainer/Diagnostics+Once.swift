import Foundation
import AppGroupSystem

extension Diagnostics {
    private static let spoken = Locked<Set<String>>([])

    /// Says `message` once per process for `key` (a file's path, say), so that a
    /// file another process keeps rewriting cannot flood the log. At most 256 keys
    /// are remembered; past that they are forgotten and said again.
    package static func warnOnce(about key: String, _ message: @autoclosure () -> String) {
        let first = spoken.withLock { keys -> Bool in
            if keys.count >= 256 { keys.removeAll() }
            return keys.insert(key).inserted
        }
        if first { warn(message()) }
    }
}
