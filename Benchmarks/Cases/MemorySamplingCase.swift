import AppGroupSimulation
import AppGroupSystem
import Foundation

/// Case 11: what the memory watchdog costs, the path a device takes where no cgroup
/// v2 memory controller can be used. One sample reads one target's footprint
/// (`/proc/<pid>/status`: RssAnon + VmSwap); the watchdog takes one per limited
/// target every `LifecycleSettings.memorySamplingInterval` (50 ms by default).
/// The figure that matters: the share of one core the watchdog takes for ten
/// targets at that interval.
func memorySamplingCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "11. memory watchdog: one footprint sample, and its share of a core")
    // Its own streams, not ours: a child left holding our standard output would keep
    // whoever reads it (the smoke test) waiting for the end of the output.
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/sleep")
    child.arguments = ["60"]
    child.standardInput = FileHandle.nullDevice
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    defer {
        child.terminate()
        child.waitUntilExit()
    }
    let pid = child.processIdentifier
    var total = 0
    let sample = measure("footprint of one target (/proc/<pid>/status)", count: run.count(20_000), warmup: 100) {
        total &+= ProcessMemory.footprint(of: pid) ?? 0
    }
    guard total > 0 else { throw BenchmarkError.child("the footprint of /bin/sleep could not be read") }
    result.samples = [sample]
    let interval = LifecycleSettings().memorySamplingInterval
    let share = 10 * sample.medianNs / (interval * 1e9)
    result.ratios.append(Ratio("core share for 10 targets sampled every \(Int(interval * 1000)) ms", share, atMost: 0.01))
    let here: String
    switch MemoryCgroup.parent {
    case .success(let parent): here = "a cgroup v2 can be made under \(parent)"
    case .failure(let why): here = "\(why)"
    }
    result.notes.append("the watchdog is used only where a cgroup v2 memory.max cannot be set (this machine: \(here))")
    return result
}
