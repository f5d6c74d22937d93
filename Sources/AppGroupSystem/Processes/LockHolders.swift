import Foundation

/// Who holds a lock file now: for a waiter's timeout message. An OFD lock's owner
/// is an open file description, which `/proc/locks` shows with pid -1 (and
/// F_OFD_GETLK answers -1 too), so the holders are found the long way: every
/// process whose open descriptors include the file and whose `fdinfo` lists a
/// lock on it. Only read on a timeout, never on a fast path.
package struct LockHolder: Sendable, Hashable, CustomStringConvertible {
    package let pid: pid_t
    /// The command name (`/proc/<pid>/comm`): a target's executable name.
    package let command: String
    /// The simulated target's application identifier, from its environment, when readable.
    package let applicationIdentifier: String?
    package let state: ProcessState

    package var description: String {
        var text = "process \(pid) (\(command)"
        if let applicationIdentifier { text += ", \(applicationIdentifier)" }
        text += ")"
        switch state {
        case .stopped:
            text += ", suspended: it runs no code, so it will not release the lock until it is resumed (on iOS too, a lock a suspended process kept blocks everyone else)"
        case .ended: text += ", ended"
        default: text += ", running"
        }
        return text
    }

    /// The processes holding a lock on `path` now (empty when none is found or /proc cannot be read).
    package static func holders(of path: String) -> [LockHolder] {
        var found: [LockHolder] = []
        for name in ProcessSystemCalls.names(in: "/proc") {
            guard let pid = pid_t(name) else { continue }
            let fds = ProcessSystemCalls.names(in: "/proc/\(pid)/fd")
            let holds = fds.contains { fd in
                guard ProcessSystemCalls.linkTarget("/proc/\(pid)/fd/\(fd)") == path,
                      let info = ProcessSystemCalls.procText("/proc/\(pid)/fdinfo/\(fd)", limit: 1 << 16) else { return false }
                return info.contains("\nlock:")
            }
            guard holds else { continue }
            let command = ProcessSystemCalls.procText("/proc/\(pid)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let environment = ProcessSystemCalls.procText("/proc/\(pid)/environ") ?? ""
            let identifier = environment.split(separator: "\0").first { $0.hasPrefix("APP_GROUP_APPLICATION_IDENTIFIER=") }
                .map { String($0.dropFirst("APP_GROUP_APPLICATION_IDENTIFIER=".count)) }
            found.append(LockHolder(pid: pid, command: command, applicationIdentifier: identifier, state: ProcessState.of(pid)))
        }
        return found
    }
}
