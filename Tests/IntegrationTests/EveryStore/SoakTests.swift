import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import ShareInbox
import TestSupport
import DeviceTestSupport

extension ProcessTests {
    @Test("soak: 8 processes mixing sets, updates, enqueues and drains lose nothing, duplicate nothing, keep memory flat", .tags(.soak))
    func soak() throws {
        let sandbox = try Sandbox()
        let seconds = Load.soakSeconds
        let workers = 8
        var children: [LaunchedProcess] = []
        for id in 0..<workers {
            children.append(try reliabilityProbe(["soak", "--group", Sandbox.group, "--id", "\(id)", "--seconds", "\(seconds)"],
                                      environment: sandbox.environment(id % 2 == 0 ? sandbox.app : sandbox.share)))
        }
        var lastSet: [String: Int] = [:]
        var increments = 0
        var enqueued = Set<String>()
        var delivered: [String: Int] = [:]
        var growth: [Int] = []
        var operations = 0
        for (id, child) in children.enumerated() {
            let end = child.wait(timeout: Double(seconds) + 300)
            #expect(end.status == 0 && end.signal == nil, "worker \(id) failed: \(end.standardError)")
            var rssStart = 0
            var rssEnd = 0
            for line in end.standardOutput.split(separator: "\n") {
                let parts = line.split(separator: " ").map(String.init)
                switch parts.first {
                case "set": lastSet["s\(id).\(parts[1])"] = Int(parts[2]); operations += 1
                case "inc": increments += 1; operations += 1
                case "enq": enqueued.insert(parts[1]); operations += 1
                case "got": delivered[parts[1], default: 0] += 1; operations += 1
                case "rss-start": rssStart = Int(parts[1]) ?? 0
                case "rss-end": rssEnd = Int(parts[1]) ?? 0
                default: break
                }
            }
            #expect(end.standardOutput.hasSuffix("done\n"), "worker \(id) did not finish its run")
            growth.append(rssEnd - rssStart)
            // Generous: the workers' caches are bounded; a leak per operation would
            // grow by far more than this over thousands of operations.
            #expect(rssEnd - rssStart < 32 * 1024, "worker \(id) grew from \(rssStart) kB to \(rssEnd) kB")
        }
        // Whatever is still queued is drained here.
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.drain { delivered[$0.title ?? "?", default: 0] += 1 }

        let domain = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver()).persistentDomain()
        let lostSets = lastSet.filter { key, value in domain[key] as? Int != value }
        #expect(lostSets.isEmpty, "sets lost or overwritten by an older value: \(lostSets.prefix(10))")
        #expect(domain["shared"] as? Int ?? 0 == increments, "the shared counter holds every update")
        let lostItems = enqueued.subtracting(delivered.keys)
        let duplicates = delivered.filter { $0.value > 1 }
        let strangers = Set(delivered.keys).subtracting(enqueued)
        #expect(lostItems.isEmpty, "items lost: \(lostItems.prefix(10))")
        #expect(duplicates.isEmpty, "items delivered twice: \(duplicates.prefix(10))")
        #expect(strangers.isEmpty, "items nobody enqueued: \(strangers.prefix(10))")
        report("soak: \(workers) processes for \(seconds) s, \(operations) operations "
            + "(\(lastSet.count) slots set, \(increments) shared increments, \(enqueued.count) enqueued, \(delivered.count) delivered); "
            + "lost sets \(lostSets.count), lost increments \((domain["shared"] as? Int ?? 0) - increments), lost items \(lostItems.count), "
            + "duplicates \(duplicates.count); VmRSS growth per worker (kB) \(growth)")
    }
}
