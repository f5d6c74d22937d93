import CAppGroupSys

/// How a child process ended, learned without reaping it: AppGroupTesting's
/// processes use it so that noticing a child's end never waits for Foundation's
/// own reaping, which runs on Dispatch queues that busy tests can starve.
package struct ChildExit: Sendable, Equatable {
    /// The exit status, or the signal when ``killedBySignal``.
    package let status: Int32
    /// True when a signal ended the child.
    package let killedBySignal: Bool

    /// Blocks until child `pid` has ended, leaving it to be reaped by its owner.
    /// Nil when it cannot be learned this way (already reaped, or not a child).
    package static func wait(forChild pid: Int32) -> ChildExit? {
        var killed: Int32 = 0
        var status: Int32 = 0
        guard agc_wait_exit(pid, &killed, &status) == 0 else { return nil }
        return ChildExit(status: status, killedBySignal: killed != 0)
    }
}
