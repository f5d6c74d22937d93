import AppGroupContainer
import AppGroupSystem
import Foundation

/// Every process a device launched (spawn, launch, run, a widget's provider, an
/// exploring launch, a share extension: all come through the device's launch), so
/// that the device ends them, with every process they started, when it ends,
/// whatever state each is in: running, stopped by a suspension, ignoring SIGTERM.
///
/// How: the processes that belong to the device are found in `/proc` (a launched
/// process with its start time; its descendants, by parent; the members of a
/// launched process's group or session, which a descendant keeps when its parent
/// ends; any process running a file under the device's directory), each is
/// stopped (SIGSTOP) as it is found so that none starts another meanwhile, the list
/// is read again until nothing new is found, and then each is killed (SIGKILL, which
/// ends a stopped process too). This process adopts the orphans of its
/// descendants (``ProcessTree/adoptOrphans()``), so a killed grandchild is reaped
/// here rather than left a zombie. Whatever is still there after a generous
/// deadline is a leak: the device names it.
final class DeviceProcesses: Sendable {
    private struct Launched: Sendable {
        let process: LaunchedProcess
        /// Its start time (`/proc/<pid>/stat`), which tells it from a later process given the same pid.
        let startTime: UInt64?
    }
    private struct State {
        var launched: [Launched] = []
        var ended = false
        var leaks: [String] = []
        var endsProcesses = true
    }
    private let state = Locked(State())

    /// How long the device waits for its processes to be gone: generous, as a
    /// loaded machine may take seconds to run a killed process's exit.
    static let deadline: TimeInterval = 60

    /// Records `process`, just launched by the device at `device`. One launched
    /// after the device ended (a launch racing ``end(device:)``) is ended at once.
    func add(_ process: LaunchedProcess, device: URL) {
        ProcessTree.adoptOrphans()
        let launched = Launched(process: process, startTime: ProcessTree.entry(of: process.processIdentifier)?.startTime)
        let late = state.withLock { state -> Bool in
            state.launched.append(launched)
            return state.ended && state.endsProcesses
        }
        if late { _ = Self.end([launched], device: device) }
    }

    /// False only for a test of the leak check itself: the device then leaves its processes running.
    var endsProcesses: Bool {
        get { state.withLock { $0.endsProcesses } }
        set { state.withLock { $0.endsProcesses = newValue } }
    }

    /// What outlived the device (empty until ``end(device:)``, and then, one hopes).
    var leaks: [String] { state.withLock { $0.leaks } }

    /// Ends every process the device at `device` launched and all they started;
    /// returns a description of each still there afterwards (a leak).
    func end(device: URL) -> [String] {
        let (launched, ends) = state.withLock { state in
            state.ended = true
            return (state.launched, state.endsProcesses)
        }
        // Nothing launched, nothing to end (most devices of a test run): no read of /proc.
        if launched.isEmpty { return [] }
        let killed = ends ? Self.end(launched, device: device) : [:]
        let leaks = Self.survivors(launched, killed: killed, device: device,
                                   waitingUntil: Date().addingTimeInterval(ends ? Self.deadline : 0))
        state.withLock { $0.leaks = leaks }
        return leaks
    }

    // MARK: - Ending

    /// Stops every process of `launched`'s trees, then kills them all.
    private static func end(_ launched: [Launched], device: URL) -> [pid_t: UInt64] {
        let me = ProcessTree.current
        let myGroup = ProcessTree.currentGroup
        var marked: [pid_t: UInt64] = [:]
        // A bound on the passes: each pass stops what it finds, so only a process
        // forking as fast as it is stopped could need more than two or three.
        for _ in 0..<200 {
            let found = members(of: launched, device: device, also: marked, excluding: me, myGroup: myGroup)
            let new = found.filter { marked[$0.pid] == nil }
            if new.isEmpty { break }
            for entry in new {
                ProcessTree.send(SIGSTOP, to: entry.pid)
                marked[entry.pid] = entry.startTime
            }
        }
        for group in groups(of: launched, excluding: myGroup) { ProcessTree.send(SIGKILL, toGroup: group) }
        for (pid, start) in marked where ProcessTree.entry(of: pid)?.startTime == start {
            ProcessTree.send(SIGKILL, to: pid)
        }
        return marked
    }

    /// The process groups (and sessions) the launched processes lead: a target's
    /// group is its own (the spawn makes it so), and its descendants stay in it
    /// even when their parent ends. A launched pid now used by another process
    /// (a later start time) leads nothing of the device's.
    private static func groups(of launched: [Launched], excluding myGroup: pid_t) -> Set<pid_t> {
        var groups: Set<pid_t> = []
        for item in launched {
            let pid = item.process.processIdentifier
            if let now = ProcessTree.entry(of: pid), let start = item.startTime, now.startTime != start { continue }
            groups.insert(pid)
        }
        groups.remove(myGroup)
        groups.remove(ProcessTree.current)
        return groups
    }

    /// The live processes that belong to the device now.
    private static func members(of launched: [Launched], device: URL, also marked: [pid_t: UInt64],
                                excluding me: pid_t, myGroup: pid_t) -> [ProcessTree.Entry] {
        let all = ProcessTree.snapshot()
        var byPid: [pid_t: ProcessTree.Entry] = [:]
        for entry in all { byPid[entry.pid] = entry }
        var roots: Set<pid_t> = []
        for item in launched {
            let pid = item.process.processIdentifier
            guard let now = byPid[pid], item.startTime == nil || now.startTime == item.startTime else { continue }
            roots.insert(pid)
        }
        for (pid, start) in marked where byPid[pid]?.startTime == start { roots.insert(pid) }
        let groups = groups(of: launched, excluding: myGroup)
        let prefix = device.path + "/"
        func belongs(_ entry: ProcessTree.Entry) -> Bool {
            if roots.contains(entry.pid) || groups.contains(entry.group) || groups.contains(entry.session) { return true }
            var parent = entry.parent
            var hops = 0
            while parent > 1 && parent != me && hops < 4096 {
                if roots.contains(parent) { return true }
                parent = byPid[parent]?.parent ?? 0
                hops += 1
            }
            return ProcessTree.executable(of: entry.pid)?.hasPrefix(prefix) == true
        }
        return all.filter { $0.pid != me && !$0.isZombie && belongs($0) }
    }

    // MARK: - Checking

    /// Waits (until `deadline`) for every launched process and every process of
    /// their trees to be gone, reaping those this process adopted; describes each
    /// still there then.
    private static func survivors(_ launched: [Launched], killed: [pid_t: UInt64], device: URL,
                                  waitingUntil deadline: Date) -> [String] {
        var leaks: [String] = []
        let me = ProcessTree.current
        var known: Set<pid_t> = []
        for item in launched {
            let pid = item.process.processIdentifier
            known.insert(pid)
            if !item.process.waitForEnd(until: deadline) {
                leaks.append(describe(pid, item.process.label.description, device: device))
                continue
            }
            // Ended: the object that owns it reaps it (the sandbox's spawn at once,
            // Foundation when its queue runs); only one of the former still there is a leak.
            guard item.process.reapsItself else { continue }
            if !waitUntilGone(pid, start: item.startTime, deadline: deadline, reap: false) {
                leaks.append(describe(pid, item.process.label.description, device: device))
            }
        }
        // What they started, killed above: gone, and reaped here when this process adopted it.
        for (pid, start) in killed where !known.contains(pid) {
            known.insert(pid)
            if !waitUntilGone(pid, start: start, deadline: deadline, reap: true) {
                leaks.append(describe(pid, "a process started by one of its targets", device: device))
            }
        }
        // Anything of the device's still running now.
        let rest = members(of: launched, device: device, also: [:], excluding: me, myGroup: ProcessTree.currentGroup)
            .filter { !known.contains($0.pid) }
        for entry in rest where !waitUntilGone(entry.pid, start: entry.startTime, deadline: deadline, reap: true) {
            leaks.append(describe(entry.pid, "a process started by one of its targets", device: device))
        }
        // Zombies this process adopted from the device's trees: reaped here.
        for entry in ProcessTree.snapshot() where entry.parent == me && entry.isZombie && !known.contains(entry.pid) {
            let ours = launched.contains { $0.process.processIdentifier == entry.group || $0.process.processIdentifier == entry.session }
            if ours { _ = ProcessTree.reapIfEnded(entry.pid) }
        }
        return leaks
    }

    /// Waits until process `pid` (started at `start`) is gone; a zombie of this
    /// process's is reaped when `reap` (one it adopted), and one of another
    /// parent's counts as gone (it runs nothing; its parent reaps it).
    private static func waitUntilGone(_ pid: pid_t, start: UInt64?, deadline: Date, reap: Bool) -> Bool {
        let me = ProcessTree.current
        while true {
            guard let entry = ProcessTree.entry(of: pid), start == nil || entry.startTime == start else { return true }
            if entry.isZombie {
                if entry.parent != me { return true }
                if reap && ProcessTree.reapIfEnded(pid) { return true }
            }
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private static func describe(_ pid: pid_t, _ what: String, device: URL) -> String {
        let state = ProcessTree.entry(of: pid).map { " (state \($0.state))" } ?? ""
        return "process \(pid)\(state), \(what), outlived the simulated device at \(device.path): "
            + "the device could not end it; end it with `kill -KILL \(pid)`"
    }
}
