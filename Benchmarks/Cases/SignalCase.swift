import AppGroupContainer
import Foundation

/// Case 10: the device's signal (SignalTable, under the Darwin notify center).
/// Post-to-delivery latency across processes, measured as half of a round trip: this
/// process posts "ping", a child observing it posts "pong", and this process's
/// observer of "pong" stops the clock (one clock, no payload needed). And the cost
/// of a post that no process observes.
func signalCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "10. signals across processes (post to delivery)")
    let root = try run.scratch("signals")
    let table = try SignalTable.forDevice(root: ContainerRoot(root))
    let pongs = DispatchSemaphore(value: 0)
    let observation = table.observe("pong") { pongs.signal() }
    let rounds = run.count(1000)
    let child = try run.spawnSelf(["child", "signal-echo", "--root", root.path])
    // The child is ready when it answers: ping until it does.
    var ready = false
    for _ in 0..<500 where !ready {
        table.post("ping")
        ready = pongs.wait(timeout: .now() + 0.02) == .success
    }
    guard ready else {
        table.post("echo.stop")
        throw BenchmarkError.usage("signal-echo child never answered")
    }
    while pongs.wait(timeout: .now() + 0.05) == .success {} // late answers of the warm-up
    var halves: [UInt64] = []
    for _ in 0..<rounds {
        let start = now()
        table.post("ping")
        guard pongs.wait(timeout: .now() + 1) == .success else { continue }
        halves.append((now() - start) / 2)
    }
    observation.cancel()
    // Asked to stop by a post, not SIGTERM: a child started by a test runner may
    // inherit a mask that blocks it.
    table.post("echo.stop")
    _ = try? run.wait(child)
    var latency = Sample(name: "post to delivery in another process (half a round trip), \(rounds) rounds", nanoseconds: halves)
    latency.extra["delivered"] = Double(halves.count)
    result.samples.append(latency)
    result.ratios.append(Ratio("signal p99 latency across processes, ms", latency.p99Ns / 1e6, atMost: 5))

    // A post no one observes: a fresh table with no sleeper.
    let quiet = try SignalTable.forDevice(root: ContainerRoot(try run.scratch("signals-quiet")))
    let posts = run.count(200_000)
    quiet.post("idle") // the slot is claimed once, as in steady use
    var batches: [UInt64] = []
    for _ in 0..<20 {
        let start = now()
        for _ in 0..<(posts / 20) { quiet.post("idle") }
        batches.append((now() - start) / UInt64(max(1, posts / 20)))
    }
    let cost = Sample(name: "post with no observer (per post)", nanoseconds: batches)
    result.samples.append(cost)
    result.ratios.append(Ratio("post with no observer, us", cost.medianNs / 1000, atMost: 2))
    result.samples += try remotePresenterSamples(run, root: root, table: table)
    result.notes.append("latency is half of a ping-pong round trip through each process's listener thread; the no-observer post is an atomic increment of two words and no system call")
    return result
}

/// Child role: `signal-echo --root R`: posts "pong" after each delivery of "ping",
/// until "echo.stop" is posted (or two minutes pass).
func signalEchoChild(_ options: Options) throws {
    let table = try SignalTable.forDevice(root: ContainerRoot(try BenchIdentity.root(options)))
    let done = DispatchSemaphore(value: 0)
    let echo = table.observe("ping") { table.post("pong") }
    let stop = table.observe("echo.stop") { done.signal() }
    _ = done.wait(timeout: .now() + 120)
    echo.cancel()
    stop.cancel()
}
