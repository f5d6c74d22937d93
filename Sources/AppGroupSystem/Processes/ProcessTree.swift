import CAppGroupSys
import Foundation

/// The processes of the machine as `/proc` lists them, and the calls that end a
/// set of them: what a simulated device uses to end every process it launched,
/// with everything those started, whatever state each is in.
package enum ProcessTree {
    /// One process, from `/proc/<pid>/stat`.
    package struct Entry: Sendable, Equatable {
        package let pid: pid_t
        /// Its parent (field 4).
        package let parent: pid_t
        /// Its process group (field 5).
        package let group: pid_t
        /// Its session (field 6).
        package let session: pid_t
        /// The kernel's state letter (field 3): `T` stopped, `Z` ended and not reaped.
        package let state: Character
        /// When it started, in clock ticks after boot (field 22): with the pid, one process for its whole life.
        package let startTime: UInt64

        /// Ended, waiting to be reaped by its parent.
        package var isZombie: Bool { state == "Z" || state == "X" || state == "x" }
    }

    /// Every process now (each number in `/proc`, its `stat` read); a process that
    /// ends while the list is read is left out.
    package static func snapshot() -> [Entry] {
        ProcessSystemCalls.names(in: "/proc").compactMap { name in
            guard let pid = pid_t(name), pid > 0 else { return nil }
            return entry(of: pid)
        }
    }

    /// Process `pid` now; nil when there is none.
    package static func entry(of pid: pid_t) -> Entry? {
        guard let text = ProcessSystemCalls.procText("/proc/\(pid)/stat", limit: 4096),
              // The command name (field 2) may hold spaces and parentheses; the rest follows the last ")".
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = pid_t(fields[1]), let group = pid_t(fields[2]),
              let session = pid_t(fields[3]), let start = UInt64(fields[19]) else { return nil }
        return Entry(pid: pid, parent: parent, group: group, session: session, state: state, startTime: start)
    }

    /// The file process `pid` runs (`readlink` of `/proc/<pid>/exe`); nil when it
    /// cannot be read (ended, or another user's).
    package static func executable(of pid: pid_t) -> String? {
        ProcessSystemCalls.linkTarget("/proc/\(pid)/exe")
    }

    /// This process's id (`getpid`).
    package static var current: pid_t { getpid() }

    /// This process's process group (`getpgrp`).
    package static var currentGroup: pid_t { getpgrp() }

    /// Makes this process the parent of its descendants' orphans, once
    /// (`prctl(PR_SET_CHILD_SUBREAPER)`): a process started by a target whose
    /// parent ended stays in this process's tree, where it is found and reaped,
    /// rather than going to init (which, in some containers, never reaps).
    package static func adoptOrphans() { _ = subreaper }

    private static let subreaper: Bool = agc_become_subreaper() == 0

    /// Sends `signal` to `pid` (`kill`); false when it failed (the process is gone).
    @discardableResult
    package static func send(_ signal: Int32, to pid: pid_t) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, signal) == 0
    }

    /// Sends `signal` to every process of group `group` (`kill` of `-group`).
    @discardableResult
    package static func send(_ signal: Int32, toGroup group: pid_t) -> Bool {
        guard group > 1 else { return false }
        return kill(-group, signal) == 0
    }

    /// Reaps child `pid` if it has ended (`waitpid` with WNOHANG): true when it was
    /// reaped now, or is not (or no longer) a child of this process.
    package static func reapIfEnded(_ pid: pid_t) -> Bool {
        agc_reap_if_ended(pid) != 0
    }
}
