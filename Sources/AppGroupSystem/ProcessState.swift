import Foundation

/// What the kernel says a process is doing, read from `/proc/<pid>/stat`: the
/// lifecycle stops (SIGSTOP) a suspended target, and whoever waits on another
/// process (a coordinated write asking presenters, a lock waiter naming its
/// holder) must tell a suspended process from a slow one, as iOS does.
package enum ProcessState: Equatable, Sendable {
    /// Running or runnable (`R`), sleeping (`S`, `D`, `I`), or any other live state.
    case running
    /// Stopped by a signal or a tracer (`T`, `t`): it runs no code until continued.
    case stopped
    /// Ended but not yet reaped (`Z`, `X`).
    case ended
    /// No such process, or its `/proc` entry cannot be read.
    case unknown

    /// The state of process `pid` now.
    package static func of(_ pid: pid_t) -> ProcessState {
        guard let data = try? SandboxSystemCalls.readRegularFile("/proc/\(pid)/stat", limit: 4096),
              let text = String(data: data, encoding: .utf8),
              // The command name (field 2) may hold spaces and parentheses; the
              // state follows the last ")".
              let close = text.lastIndex(of: ")") else { return .unknown }
        let rest = text[text.index(after: close)...].drop { $0 == " " }
        switch rest.first {
        case "T", "t": return .stopped
        case "Z", "X", "x": return .ended
        case .some: return .running
        case .none: return .unknown
        }
    }

    /// When process `pid` started, in clock ticks after boot (`/proc/<pid>/stat`
    /// field 22); nil when it cannot be read. With the pid it names one process
    /// for its whole life: a reused pid comes with a later start.
    package static func startTime(of pid: pid_t) -> UInt64? {
        guard let data = try? SandboxSystemCalls.readRegularFile("/proc/\(pid)/stat", limit: 4096),
              let text = String(data: data, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after the command name start at field 3 (the state): field 22 is the 20th.
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// Whether process `pid` is stopped (suspended) now.
    package static func isStopped(_ pid: pid_t) -> Bool { of(pid) == .stopped }
}
