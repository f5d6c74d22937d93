import Foundation
import AppGroupContainer

// Benchmarks: the emulator against Foundation's UserDefaults and against the bare
// system-call floor, side by side in one run. Every figure that matters is a ratio
// between two measurements of the same run, because absolute times drift between
// runs on shared machines.
//
//   swift run -c release Benchmarks [--case N[,N...]] [--scale F] [--json FILE]

let usage = """
usage: Benchmarks [--case N[,N...]] [--scale F] [--json FILE] [--list]

  --case   which cases to run, by number (default: all); --list names them
  --scale  multiply every count by F (default 1; 0.01 for a smoke run)
  --json   also write the results as JSON to FILE
"""

let cases: [(number: String, name: String, run: (BenchmarkRun) throws -> CaseResult)] = [
    ("1", "coherent read", readCase),
    ("2", "set by suite size", setCase),
    ("3", "cross-process read-modify-write", contentionCase),
    ("4", "file coordinator", coordinatorCase),
    ("5", "share inbox end to end", inboxCase),
    ("6", "change observation across processes", observationCase),
    ("7", "growth with suite size and item count", growthCase),
    ("8", "property-list codec in memory", codecCase),
    ("9", "target launch, bare against sandboxed", launchCase),
    ("10", "signals across processes", signalCase),
    ("11", "memory watchdog sampling", memorySamplingCase),
    ("12", "timeline trace: cost off and on", traceCase),
    ("13", "a sandboxed target's system calls, with the metadata filter", metadataFilterCase),
    ("14", "keychain reads by access group", keychainCase),
    ("15", "exploring schedules, without and with iOS's faults", explorationCase),
]

func runChild(_ options: Options) throws {
    switch options.positional.dropFirst().first ?? "" {
    case "lock-loop": try lockLoopChild(options)
    case "ud-increment": try foundationIncrementChild(options)
    case "sd-increment": try sharedDefaultsIncrementChild(options)
    case "sd-writer": try sharedDefaultsWriterChild(options)
    case "inbox-enqueue": try inboxEnqueueChild(options)
    case "inbox-drain": try inboxDrainChild(options)
    case "inbox-writer": try inboxWriterChild(options)
    case "floor-publish": try floorPublishChild(options)
    case "reread-profile": try rereadProfileChild(options)
    case "set-profile": try setProfileChild(options)
    case "check-loop": try checkLoopChild(options)
    case "floor-publish-numbered": try floorPublishChild(options, numbered: true)
    case "noop": break // the target of case 9
    case "metadata-calls": try metadataCallsChild(options)
    case "signal-echo": try signalEchoChild(options)
    case "presenter": try presenterChild(options)
    case "fast-paths": try fastPathsChild(options)
    case "explore-count": try exploreCountChild(options)
    case let role: throw BenchmarkError.usage("unknown child role \(role)")
    }
}

/// Foundation's UserDefaults writes `$XDG_CONFIG_HOME/<suite>.plist`, and reads the
/// variable once at start-up (a later setenv is ignored). So the run re-executes
/// itself with XDG_CONFIG_HOME pointing at a scratch directory, keeping the user's
/// own configuration untouched; children inherit it.
let scratchConfigKey = "APP_GROUP_BENCH_SCRATCH_CONFIG"
func reexecWithScratchConfig() -> Never {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appgroup-bench-config-\(getpid())")
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    setenv("XDG_CONFIG_HOME", scratch.path, 1)
    setenv(scratchConfigKey, scratch.path, 1)
    let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
    execv("/proc/self/exe", arguments)
    FileHandle.standardError.write(Data("Benchmarks: cannot re-execute itself (errno \(errno))\n".utf8))
    exit(1)
}

// --version, -h and help answer before option parsing, as on every executable of the package.
let bareArguments = CommandLine.arguments.dropFirst()
if bareArguments.contains("--version") { print("Benchmarks \(AppGroupContainerVersion.string)"); exit(0) }
if bareArguments.contains("-h") || bareArguments.first == "help" { print(usage); exit(0) }

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if options.positional.first == "child" {
        try runChild(options)
        exit(0)
    }
    if options.flag("help") { print(usage); exit(0) }
    if options.flag("list") {
        for c in cases { print("\(c.number)  \(c.name)") }
        exit(0)
    }
    guard let scale = Double(options.values["scale"] ?? "1"), scale > 0 else { throw BenchmarkError.usage("--scale must be a positive number") }
    guard let scratchConfig = ProcessInfo.processInfo.environment[scratchConfigKey] else { reexecWithScratchConfig() }
    defer { try? FileManager.default.removeItem(atPath: scratchConfig) }
    let selected = options.values["case"].map { Set($0.split(separator: ",").map(String.init)) }
    if let unknown = selected?.subtracting(cases.map(\.number)).sorted().first {
        throw BenchmarkError.usage("no case \(unknown): --case takes numbers from 1 to \(cases.count), comma-separated")
    }
    let run = try BenchmarkRun(scale: scale)
    print("Benchmarks on \(machineDescription()), scale \(scale)")
    var results: [CaseResult] = []
    for c in cases where selected?.contains(c.number) ?? true {
        let result = try c.run(run)
        printTable(result)
        results.append(result)
    }
    let missed = results.flatMap(\.ratios).filter { !$0.met }
    print("")
    print(missed.isEmpty ? "all targets met" : "targets missed: " + missed.map(\.name).joined(separator: "; "))
    if let path = options.values["json"] {
        let report = RunReport(date: ISO8601DateFormatter().string(from: Date()), machine: machineDescription(), scale: scale, cases: results)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
    }
} catch {
    FileHandle.standardError.write(Data("Benchmarks: \(error)\n".utf8))
    exit(1)
}
