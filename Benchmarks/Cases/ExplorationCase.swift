import AppGroupContainer
import AppGroupSimulation
import Foundation

/// Case 15: schedules per second of the exploring device for two targets (each
/// this executable, `Benchmarks child explore-count`: one coordinated
/// read-modify-write of a counter in the group), without iOS's faults and with all
/// of them (each on in about half the schedules). Each schedule is a fresh device
/// and two launches: the figure is the whole schedule, launches included.
func explorationCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "15. exploring schedules for two targets, without and with iOS's faults")
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let app = try SimulatedTarget(name: "BenchApp", kind: .app, entitlements: try BenchIdentity.entitlements(), infoPlist: nil)
    let widget = try SimulatedTarget(name: "BenchWidget", kind: .widget, entitlements: try BenchIdentity.entitlements("ai.bench.app.widget"),
                                     infoPlist: nil)
    let schedules = max(4, run.count(40))
    func body(_ device: SimulatedDevice) throws {
        let counter = try device.resolver(for: app).requireContainerURL(forSecurityApplicationGroupIdentifier: BenchIdentity.group)
            .appendingPathComponent("counter")
        let processes = try [app, widget].map { try device.launch(me, ["child", "explore-count", "--file", counter.path], as: $0, sandbox: .unenforced) }
        // A fault may end a target (jetsam, termination): its end is the figure's, not a failure.
        for process in processes { _ = process.wait(timeout: 60) }
    }
    var rates: [String: Double] = [:]
    for (label, faults) in [("without faults", Set<ExplorationFault>()), ("with every fault", ExplorationFault.all)] {
        let report = try SimulatedDevice.explore(schedules: schedules, faults: faults, seed: 0xBE4C, name: "bench-explore", body)
        rates[label] = report.schedulesPerSecond
        result.samples.append(Sample(name: label, value: report.schedulesPerSecond, unit: "schedules per second"))
        result.notes.append("\(label): schedules=\(report.schedules) steps=\(report.steps) faults=\(report.faults) "
            + "seconds=\(String(format: "%.2f", report.seconds)) schedules/s=\(String(format: "%.1f", report.schedulesPerSecond))")
    }
    result.ratios.append(Ratio("schedules per second, two targets, without faults", rates["without faults"] ?? 0, atLeast: 20))
    result.ratios.append(Ratio("schedules per second, two targets, with every fault", rates["with every fault"] ?? 0, atLeast: 20))
    return result
}

/// `child explore-count --file F`: one coordinated read-modify-write of the number in F.
func exploreCountChild(_ options: Options) throws {
    let url = URL(fileURLWithPath: try options.string("file"))
    try FileCoordinator(timeout: 30).coordinate(writingItemAt: url) { url in
        let old = (try? String(contentsOf: url, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        try Data("\(old + 1)\n".utf8).write(to: url, options: .atomic)
    }
}
