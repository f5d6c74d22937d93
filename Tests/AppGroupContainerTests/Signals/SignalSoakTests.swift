import AppGroupTesting
@testable import AppGroupContainer
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// Bad input: "thousands of observers and posts a second do not grow
/// memory without bound", and a crashed observer never blocks a post. Observer
/// processes (SignalProbe observe-many) hold thousands of registrations on one
/// device's table while this process posts at a high rate; a few observers are
/// killed in the middle. A few seconds by default; `APP_GROUP_SOAK=1` runs a minute.
@Suite("Signals under load", .tags(.multiprocess))
struct SignalSoakTests {
    @Test("thousands of registrations in many processes, a high post rate, killed observers: memory and table stay bounded",
          .tags(.soak, .killed))
    func manyObserverProcesses() throws {
        let processes = Load.number("APP_GROUP_SOAK_SIGNAL_PROCESSES", normal: 50, soak: 50)
        let names = Load.number("APP_GROUP_SOAK_SIGNAL_NAMES", normal: 40, soak: 40)
        let seconds = Double(Load.number("APP_GROUP_SOAK_SIGNAL_SECONDS", normal: 3, soak: 60))
        let killed = Set(stride(from: 0, to: processes, by: 10)) // a crashed observer blocks no post
        try withTemporaryDirectory { root in
            try withSignalProbes { probes in
                for i in 0..<processes {
                    probes.append(try SignalProbe.start(["observe-many", "--root", root.path, "--prefix", "p\(i)", "--count", "\(names)"]))
                }
                for probe in probes { #expect(probe.waitForLine("ready", timeout: 120), "\(probe.standardError)") }
                let table = try SignalTable.forDevice(root: ContainerRoot(root))
                let all = (0..<processes).flatMap { i in (0..<names).map { "p\(i).\($0)" } }

                // The steady phase: every name, round and round, up to 20,000 posts a second (1,000 each 50 ms).
                var start: [Int: Int] = [:], posts = 0
                let begin = Date()
                while Date().timeIntervalSince(begin) < seconds {
                    for _ in 0..<1_000 {
                        table.post(all[posts % all.count])
                        posts += 1
                    }
                    let elapsed = Date().timeIntervalSince(begin)
                    if start.isEmpty, elapsed > min(1, seconds / 3) {
                        for (i, probe) in probes.enumerated() { start[i] = Self.residentKB(probe.processIdentifier) }
                        for i in killed { probes[i].kill() } // mid-phase, while posts keep coming
                    }
                    usleep(50_000)
                }
                let namesInUse = table.namesInUse
                var end: [Int: Int] = [:]
                for (i, probe) in probes.enumerated() where !killed.contains(i) { end[i] = Self.residentKB(probe.processIdentifier) }

                // Quiet, then the last post of every name: each live observer hears each name after it.
                let live = probes.enumerated().filter { !killed.contains($0.offset) }
                for mark in 1...3 { // the third mark comes after any notice of the steady phase
                    for (i, _) in live { table.post("p\(i).mark") }
                    for (i, probe) in live { #expect(probe.waitForLine("marked \(mark)", timeout: 120), "observer \(i)") }
                }
                for name in all { table.post(name) }
                for (i, probe) in live {
                    #expect(probe.waitForLine("heard all 3", timeout: 120), "observer \(i) missed a name: \(probe.outputLines.suffix(3))")
                }

                // Generous bounds: a leak per post or per notice would grow by far more.
                for (i, kB) in end {
                    #expect(kB - (start[i] ?? 0) < 16 * 1024, "observer \(i) grew from \(start[i] ?? 0) kB to \(kB) kB")
                }
                // Each observed name holds one slot, claimed when it was first observed; posts add none.
                #expect(namesInUse == processes * (names + 1), "the table holds \(namesInUse) names")
                #expect(table.namesInUse == namesInUse)
                report("signals soak: \(processes) processes x \(names) names, \(posts) posts in \(Int(seconds)) s, "
                    + "\(killed.count) observers killed; VmRSS growth (kB) max \(end.map { $0.value - (start[$0.key] ?? 0) }.max() ?? 0); "
                    + "table names \(table.namesInUse)")
            }
        }
    }

    /// VmRSS of `pid` in kB (0 when it cannot be read).
    static func residentKB(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
