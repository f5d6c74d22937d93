import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import ShareInbox
import SharedDefaults
import TestSupport
import Testing

/// A storm of suspensions at random points of SharedDefaults saves and
/// inbox enqueues. Whatever point a suspension hits, nothing a writer acknowledged
/// is lost, and the device's verdict follows the rule: a writer killed held a lock
/// in the device's containers (it is reported with them), one left suspended held none.
@Suite(.tags(.multiprocess, .killed, .soak)) struct SuspensionStormTests {
    static var rounds: Int { Load.number("APP_GROUP_SOAK_SUSPENSIONS", normal: 12, soak: 200) }

    /// The files under `root` that process `pid` holds a lock on, read by the test
    /// itself from /proc (not through the device's code), while the process is stopped.
    static func lockedFiles(of pid: Int32, under root: String) -> [String] {
        let fdinfo = "/proc/\(pid)/fdinfo"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fdinfo)) ?? []
        return names.compactMap { fd in
            guard let info = try? String(contentsOfFile: "\(fdinfo)/\(fd)", encoding: .utf8), info.contains("lock:"),
                  let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                  path.hasPrefix(root + "/") else { return nil }
            return path
        }
    }

    /// The highest `n` of the lines "ack <n>" the writer printed.
    static func acknowledged(_ process: LaunchedProcess) -> Int {
        process.outputLines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? 0
    }

    @Test func suspensionsAtRandomPointsLoseNothingAcknowledgedAndKillByTheRule() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        var random = SeededGenerator(seed: Load.seed)
        var kills = 0
        var suspensions = 0
        for round in 1...Self.rounds {
            let suite = NotesExample.groupIdentifier
            // Half the rounds pause between writes, so suspensions land both inside and between them.
            let pause = round % 2 == 0 ? "3000" : "0"
            let writers = [
                try await fixture.probe(["defaults-storm", "--suite", suite, "--count", "100000", "--pause-us", pause], as: fixture.notes.app),
                try await fixture.probe(["inbox-storm", "--group", suite, "--count", "100000", "--pause-us", pause], as: fixture.notes.shareExtension),
            ]
            try await Task.sleep(nanoseconds: UInt64.random(in: 1_000_000...150_000_000, using: &random))
            for writer in writers {
                try await device.moveToBackground(writer)
                // The writer runs on while in the background; the suspension lands anywhere in a save.
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...20_000_000, using: &random))
                switch try await device.suspend(writer) {
                case .killed(let report):
                    kills += 1
                    #expect(report.reason == .heldLockWhileSuspended)
                    #expect(!report.heldLocks.isEmpty)
                    #expect(report.heldLocks.allSatisfy { $0.path.hasPrefix(device.root.path + "/") }, "round \(round): \(report)")
                case .suspended:
                    suspensions += 1
                    #expect(Self.lockedFiles(of: writer.processIdentifier, under: device.root.path).isEmpty,
                            "round \(round): suspended while holding locks in the containers")
                    try await device.jetsam(writer)
                }
                _ = writer.wait(timeout: 30)
            }
            // Everything acknowledged is there.
            let savedUpTo = Self.acknowledged(writers[0])
            try fixture.notes.app.run(on: device) {
                let defaults = try SharedDefaults(requiringSuiteName: suite)
                for i in Swift.stride(from: 1, through: savedUpTo, by: max(1, savedUpTo / 50)) + [savedUpTo] where i > 0 {
                    #expect(defaults.integer(forKey: "k\(i)") == i, "round \(round): k\(i) lost (acknowledged up to \(savedUpTo))")
                }
            }
            let enqueuedUpTo = Self.acknowledged(writers[1])
            let inbox = try ShareInbox(groupIdentifier: suite, resolver: device.resolver(for: fixture.notes.app))
            _ = try inbox.recoverAbandonedClaims()
            let titles = Set(try inbox.pendingItems().compactMap(\.title))
            let missing = (1...max(enqueuedUpTo, 1)).filter { enqueuedUpTo > 0 && !titles.contains("t\($0)") }
            #expect(missing.isEmpty, "round \(round): enqueued items lost: \(missing.prefix(10))")
            _ = try inbox.drain { _ in }
        }
        print("suspension storm: \(kills) killed with 0xdead10cc, \(suspensions) suspended holding no lock")
        // Every suspension was judged: killed or suspended, and the reports match the kills.
        #expect(kills + suspensions == Self.rounds * 2)
        #expect(device.terminations.filter { $0.reason == .heldLockWhileSuspended }.count == kills)
    }
}
