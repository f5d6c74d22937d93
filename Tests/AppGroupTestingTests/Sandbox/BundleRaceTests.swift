import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// A target's bundle is made once, completely, before anything runs it: launches
/// of one target racing on a device whose bundles must be copied (another file
/// system than the build's) each run the whole executable, never one still being
/// written (`execve` would fail with ETXTBSY, or run a half-written file).
@Suite(.tags(.multiprocess)) struct BundleRaceTests {
    @Test("many launches at once of one target whose executable is copied into its bundle all run, beside a CPU hog")
    func racingLaunchesOfACopiedBundle() throws {
        // Two busy loops, one per core of a small machine: what made the race show.
        let hogs = try (0..<2).map { _ in
            try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "while :; do :; done"], environment: [:])
        }
        defer { for hog in hogs { hog.kill(); hog.wait() } }
        let notes = try NotesExample()
        let rounds = Load.number("APP_GROUP_BUNDLE_RACE_ROUNDS", quick: 6, full: 20, deep: 100)
        let launches = 12
        for round in 0..<rounds {
            let device = try SimulatedDevice(name: "BundleRace")
            defer { device.remove() }
            device.installsBundlesByCopy = true
            let failures = Tally<[String]>([])
            let finished = onThreads(launches, timeout: 600) { i in
                do {
                    let end = try device.spawn(built: "LifecycleProbe", ["hello"], as: notes.app, timeout: 300)
                    if !end.succeeded || end.outputLines != ["ready"] { failures.update { $0.append("launch \(i): \(end)") } }
                } catch {
                    failures.update { $0.append("launch \(i): \(error)") }
                }
            }
            #expect(finished, "round \(round): the launches hung")
            #expect(failures.current.isEmpty, "round \(round): \(failures.current.joined(separator: "\n"))")
            // The copy path was the one taken: the bundle's executable is a file of its own.
            let source = try #require(SimulatedDevice.builtExecutable(named: "LifecycleProbe")).resolvingSymlinksInPath()
            let bundled = device.directory.appendingPathComponent("Bundles/\(notes.app.bundleIdentifier)/LifecycleProbe/\(notes.app.executableName).app/\(notes.app.executableName)")
            let inode = { (url: URL) in (try? FileManager.default.attributesOfItem(atPath: url.path))?[.systemFileNumber] as? UInt64 }
            #expect(inode(bundled) != nil && inode(bundled) != inode(source), "round \(round): \(bundled.path) is not a copy")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: bundled.deletingLastPathComponent().path).filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "round \(round): temporary files left in the bundle: \(leftovers)")
            if !failures.current.isEmpty { break }
        }
    }
}
