import AppGroupContainer
import AppGroupSimulation
import Foundation

/// Case 9: what it costs to launch a target as an app (from its bundle, in its home,
/// inside its Landlock sandbox) against launching the same executable bare with
/// Foundation's Process. The target is this executable, `Benchmarks child noop`,
/// which exits at once: the figures are the launches themselves, to the child's end.
func launchCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "9. launching a target: bare, as an app unenforced, as an app sandboxed")
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let device = try SimulatedDevice(name: "bench-launch", keepPolicy: .never)
    defer { device.remove() }
    let target = try SimulatedTarget(name: "BenchApp", kind: .app, entitlements: try BenchIdentity.entitlements(), infoPlist: nil)
    let environment = ProcessInfo.processInfo.environment
    func finish(_ process: LaunchedProcess) throws {
        let outcome = process.wait(timeout: 60)
        guard outcome.succeeded else { throw BenchmarkError.child("\(outcome)") }
    }
    let count = run.count(100)
    let samples = try measureInTurns([
        ("bare (Foundation's Process)", { try finish(try LaunchedProcess(executable: me, arguments: ["child", "noop"], environment: environment)) }),
        ("as an app, unenforced", { try finish(try device.launch(me, ["child", "noop"], as: target, sandbox: .unenforced)) }),
        ("as an app, sandboxed", { try finish(try device.launch(me, ["child", "noop"], as: target, sandbox: .enforced)) }),
    ], count: count, warmup: 5)
    result.samples = samples
    if KernelSandbox.isAvailable {
        result.ratios.append(Ratio("sandboxed / bare launch", samples[2].medianNs / samples[0].medianNs, atMost: 1.2))
    } else {
        result.notes.append("the kernel cannot enforce the sandbox here (\(KernelSandbox.availability)): the sandboxed figure is unenforced")
    }
    result.notes.append("sandboxed / unenforced: \(String(format: "%.2f", samples[2].medianNs / samples[1].medianNs)) (the Landlock ruleset alone)")
    return result
}
