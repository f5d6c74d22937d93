#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// One process for its whole life: its pid and its start time, so that a reused
/// pid is never taken for an earlier process. Named `<pid>-<start>` in files.
struct ProcessKey: Hashable, Sendable {
    let pid: pid_t
    let start: UInt64

    var name: String { "\(pid)-\(start)" }

    init(pid: pid_t, start: UInt64) { (self.pid, self.start) = (pid, start) }

    /// The key at the start of a file name (`<pid>-<start>` up to the first "." or "_").
    init?(prefixOf name: Substring) {
        let key = name.prefix { $0 != "." && $0 != "_" }
        let parts = key.split(separator: "-")
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, let start = UInt64(parts[1]) else { return nil }
        self.init(pid: pid, start: start)
    }

    static let current = ProcessKey(pid: getpid(), start: ProcessState.startTime(of: getpid()) ?? 0)

    /// Nil when the process has ended (its pid gone, a zombie, or reused by a later
    /// process); else its state. When /proc cannot be read (a sandbox), it is taken
    /// to be alive: a registration is removed only when its process is surely gone.
    var state: ProcessState? {
        guard SystemCalls.processExists(pid) else { return nil }
        let state = ProcessState.of(pid)
        if state == .ended { return nil }
        if start != 0, let now = ProcessState.startTime(of: pid), now != start { return nil }
        return state
    }
}
#endif
