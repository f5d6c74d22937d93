import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The inbox on a disk that is really full (a tmpfs in a mount namespace of its own).
@Suite("Inbox on a full disk", .tags(.hostile, .multiprocess), .serialized, .dedicatedThreads)
struct InboxFullDiskTests {
    /// On a full disk a drain must still deliver, and so free
    /// the space: a journal item's delivery needs no new block (its cursor was
    /// written whole when made), and what cannot be done for want of space (a
    /// cursor not made yet, a copy to Quarantine/) waits for a later drain.
    @Test("a full disk (a 256 KiB tmpfs) holding journal items and items with attachments: the drains deliver every acknowledged item once, in order, and empty it; enqueues work again",
          .enabled(if: canMountTmpfs, "needs a tmpfs mount (unshare -m as root, or unshare -rm)"))
    func drainEmptiesAFullDisk() throws {
        let sandbox = try Sandbox()
        let probe = try #require(SimulatedDevice.builtExecutable(named: "ReliabilityProbe"))
        let out = sandbox.scratch.path
        let script = #"""
            "$1" inbox-fill --group "$2" --scratch "$3" --attachment-bytes 6000 > "$3/fill.out" 2> "$3/fill.err"
            df -k "$0" | tail -1 > "$3/df-full.out"
            "$1" inbox-drain --group "$2" --until-empty > "$3/drain.out" 2> "$3/drain.err"
            inbox=$(find "$0" -type d -name Inbox | head -1)
            ls -A "$inbox/Items" > "$3/items-left.out"; ls -A "$inbox/Journal" > "$3/journal-left.out"
            "$1" inbox-enqueue --group "$2" --id after --count 2 --attach-every 2 --scratch "$3" > "$3/after.out" 2>&1
            "$1" inbox-drain --group "$2" --until-empty > "$3/drain-after.out" 2>&1
            df -k "$0" | tail -1 > "$3/df-empty.out"
            """#
        let end = try onSmallFileSystem(size: "256k", at: sandbox.root, script, [probe.path, Sandbox.group, out],
                                        environment: sandbox.environment(sandbox.app))
        func lines(_ name: String) -> [String] {
            ((try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(end.status == 0, "\(end.standardOutput)\(end.standardError)")
        let fill = lines("fill.out")
        let full = try #require(fill.last { $0.hasPrefix("full ") }, "the disk never filled: \(fill.suffix(3)) \(lines("fill.err"))")
        let counts = full.split(separator: " ").dropFirst().compactMap { Int($0) }
        #expect(counts.count == 2 && counts.allSatisfy { $0 > 0 }, "both kinds were enqueued before the disk filled: \(full)")
        var ledger = InboxLedger()
        ledger.acknowledge(fill)
        ledger.deliver(lines("drain.out"), drainer: "drain on the full disk")
        #expect(ledger.check().isEmpty, "\(ledger.check().prefix(8)); drain: \(lines("drain.out").filter { !$0.hasPrefix("got ") }.prefix(6))")
        #expect(lines("items-left.out").isEmpty, "Items/ after the drains: \(lines("items-left.out"))")
        #expect(lines("journal-left.out") == [".consumer.lock"], "Journal/ after the drains: \(lines("journal-left.out"))")
        var after = InboxLedger()
        after.acknowledge(lines("after.out"))
        after.deliver(lines("drain-after.out"), drainer: "drain after")
        #expect(after.acknowledged.count == 2 && after.check().isEmpty, "\(lines("after.out")) \(after.check())")
        report("full disk drained (tmpfs 256 KiB): \(counts[0]) journal items and \(counts[1]) items with attachments, "
            + "df full: \(lines("df-full.out").first ?? "?"), df after: \(lines("df-empty.out").first ?? "?")")
    }
}
