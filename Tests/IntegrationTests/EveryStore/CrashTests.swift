import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import SharedKeychain
import Testing
import ShareInbox
import TestSupport
import DeviceTestSupport

/// The tests that run many child processes. Serialized with each other, so that
/// each one's load is its own (the in-process suites still run beside them).
@Suite("Processes", .tags(.multiprocess), .serialized, .dedicatedThreads)
struct ProcessTests {}

/// What one killed writer managed.
struct WriterOutcome: Sendable {
    enum Kind: Sendable { case groupSuite, privateSuite, inbox, keychain, observer }
    let id: Int
    let kind: Kind
    /// The last i whose "ack i" line was printed: every call up to it returned.
    let lastAck: Int
    let problem: String?
}

extension ProcessTests {
    @Test("crash safety: writers SIGKILLed at random moments lose no acknowledged write and deliver nothing half-written", .tags(.killed, .soak))
    func killedWriters() throws {
        let sandbox = try Sandbox()
        let kills = Load.kills
        let lanes = 8
        let privateSuite = "crash-private"
        let started = Date()
        let outcomes = Tally<[WriterOutcome]>([])
        onThreads(lanes, timeout: .infinity) { lane in
            var generator = SystemRandomNumberGenerator()
            for id in stride(from: lane, to: kills, by: lanes) {
                // Every writer of the package: suites, the inbox, the keychain, and an
                // observer that writes from inside its change handler.
                let kinds: [WriterOutcome.Kind] = [.groupSuite, .inbox, .privateSuite, .inbox, .keychain, .observer]
                let kind = kinds[id % kinds.count]
                let arguments: [String]
                switch kind {
                case .groupSuite: arguments = ["defaults-writer", "--suite", Sandbox.group, "--id", "\(id)", "--count", "100000"]
                case .privateSuite: arguments = ["defaults-writer", "--suite", privateSuite, "--id", "\(id)", "--count", "100000"]
                case .inbox: arguments = ["inbox-writer", "--group", Sandbox.group, "--id", "\(id)", "--count", "100000",
                                          "--scratch", sandbox.scratch.path]
                case .keychain: arguments = ["keychain-writer", "--group", Sandbox.group, "--id", "\(id)", "--count", "100000"]
                case .observer: arguments = ["observer-writer", "--suite", Sandbox.group, "--id", "\(id)"]
                }
                var problem: String?
                do {
                    let child = try reliabilityProbe(arguments, environment: sandbox.environment(sandbox.share))
                    if !child.waitForOutput(containing: "ready", timeout: 60) { problem = "writer \(id) never got ready" }
                    // A random moment inside the write loop (each write takes about a millisecond).
                    usleep(UInt32.random(in: 0...150_000, using: &generator))
                    child.kill()
                    let end = child.wait(timeout: 120)
                    if end.signal == nil { problem = "writer \(id) ended by itself (\(end.status)): \(end.standardError)" }
                    let last = end.standardOutput.split(separator: "\n").last { $0.hasPrefix("ack ") }.flatMap { Int($0.dropFirst(4)) } ?? 0
                    outcomes.update { $0.append(WriterOutcome(id: id, kind: kind, lastAck: last, problem: problem)) }
                } catch {
                    outcomes.update { $0.append(WriterOutcome(id: id, kind: kind, lastAck: 0, problem: "\(error)")) }
                }
            }
        }
        let killPhase = Date().timeIntervalSince(started)
        let all = outcomes.current
        #expect(all.count == kills)
        for outcome in all { if let problem = outcome.problem { Issue.record(Comment(rawValue: problem)) } }

        // Defaults: both suite files parse; every acknowledged value is there, whole.
        let app = sandbox.resolver(sandbox.share)
        var acknowledgedSets = 0
        var inFlightCommitted = 0
        for (suite, kind) in [(Sandbox.group, WriterOutcome.Kind.groupSuite), (privateSuite, .privateSuite)] {
            let defaults = try SharedDefaults(requiringSuiteName: suite, resolver: app)
            let file = try #require(try AtomicFile.read(defaults.fileURL, below: .marked(above: defaults.fileURL)))
            let parsed = try PropertyListSerialization.propertyList(from: file, options: [], format: nil)
            #expect(parsed is [String: Any], "the \(suite) suite file parses to a dictionary")
            let domain = try defaults.persistentDomain()
            let writers = all.filter { $0.kind == kind }
            let acked = writers.reduce(0) { $0 + $1.lastAck }
            acknowledgedSets += acked
            for writer in writers {
                let value = domain["w\(writer.id)"] as? [String: Any]
                guard let value else {
                    #expect(writer.lastAck == 0, "writer \(writer.id) acknowledged \(writer.lastAck) writes, none is in the suite")
                    continue
                }
                let n = value["n"] as? Int ?? -1
                #expect(value["check"] as? String == "\(writer.id)-\(n)", "writer \(writer.id)'s value is whole: \(value)")
                #expect(n == writer.lastAck || n == writer.lastAck + 1,
                        "writer \(writer.id): acknowledged \(writer.lastAck), the suite holds \(n)")
                if n == writer.lastAck + 1 { inFlightCommitted += 1 }
            }
            // Each ack covers one update of "lane"; a writer killed after its update
            // returned but before it printed adds at most one more.
            let lane = domain["lane"] as? Int ?? 0
            #expect(lane >= acked && lane <= acked + writers.count, "lane counter \(lane) for \(acked) acknowledged updates")
        }

        // Temporary files of killed saves are ignored by readers (above) and removed
        // once stale: age them past the minute a live save could take, then open.
        let preferences = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: app).fileURL.deletingLastPathComponent()
        let temporaries = try FileManager.default.contentsOfDirectory(atPath: preferences.path).filter(AtomicFile.isTemporaryName)
        for name in temporaries {
            var times = [timeval(tv_sec: time(nil) - 600, tv_usec: 0), timeval(tv_sec: time(nil) - 600, tv_usec: 0)]
            #expect(utimes(preferences.appendingPathComponent(name).path, &times) == 0)
        }
        _ = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: app)
        let remaining = try FileManager.default.contentsOfDirectory(atPath: preferences.path).filter(AtomicFile.isTemporaryName)
        #expect(remaining.isEmpty, "stale temporaries are removed: \(remaining)")

        // Observers: each update made inside a change handler that returned is there
        // (one more at most, caught by the kill after it committed).
        let groupDomain = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: app).persistentDomain()
        var observerWrites = 0
        for observer in all where observer.kind == .observer {
            let stored = groupDomain["obs\(observer.id)"] as? Int ?? 0
            observerWrites += observer.lastAck
            #expect(stored >= observer.lastAck && stored <= observer.lastAck + 1,
                    "observer \(observer.id) acknowledged \(observer.lastAck) writes from its handler, the suite holds \(stored)")
        }

        // Keychain: every acknowledged item is there with its own secret, nothing
        // beyond one in-flight save, and no readable copy of the secrets is left.
        let keychain = Keychain(device: try KeychainDevice(root: sandbox.root), identity: sandbox.app)
        var acknowledgedSecrets = 0
        for writer in all where writer.kind == .keychain {
            acknowledgedSecrets += writer.lastAck
            for i in stride(from: 1, through: writer.lastAck + 2, by: 1) {
                let key = GenericPassword(service: "crash", account: "w\(writer.id)-\(i)", accessGroup: Sandbox.group)
                let secret = try keychain.readIfPresent(key)
                if i <= writer.lastAck {
                    #expect(secret == Data("secret-\(writer.id)-\(i)".utf8), "keychain writer \(writer.id): acknowledged item \(i) is missing or wrong")
                } else if i == writer.lastAck + 2 {
                    #expect(secret == nil, "keychain writer \(writer.id): item \(i) is beyond what it could have saved")
                }
            }
        }
        // Killed saves' temporaries (copies of the secrets) go with the next save: it
        // holds the write lock, so none of them can belong to a live writer. (A read
        // removes only those whose writer's pid is gone and that are a second old, so
        // right after the storm it may rightly keep the last ones.)
        let keychains = keychain.device.directory(forAccessGroup: Sandbox.group)
        let keychainTemporaries = ((try? FileManager.default.contentsOfDirectory(atPath: keychains.path)) ?? []).filter(AtomicFile.isTemporaryName)
        try keychain.save(Data("after".utf8), for: GenericPassword(service: "crash", account: "after-the-storm", accessGroup: Sandbox.group))
        let keychainLeftovers = ((try? FileManager.default.contentsOfDirectory(atPath: keychains.path)) ?? []).filter(AtomicFile.isTemporaryName)
        #expect(keychainLeftovers.isEmpty, "a keychain save after the storm removes killed writers' temporaries: \(keychainLeftovers)")

        // Inbox: drain everything; every acknowledged item comes, once, whole.
        var inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver(sandbox.app))
        let staging = inbox.directory.appendingPathComponent("Staging")
        let stagingLeft = try FileManager.default.contentsOfDirectory(atPath: staging.path).count
        inbox.staleStagingAge = 0
        let writers = Dictionary(uniqueKeysWithValues: all.filter { $0.kind == .inbox }.map { ($0.id, $0) })
        var seen = Set<String>()
        var duplicates = 0
        var unacknowledgedDelivered = 0
        try inbox.drain { item in
            let title = item.title ?? ""
            if !seen.insert(title).inserted { duplicates += 1 }
            let parts = title.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2, let writer = writers[parts[0]] else {
                Issue.record("an item nobody wrote: \(title)")
                return
            }
            let i = parts[1]
            #expect(i <= writer.lastAck + 1, "item \(title) is beyond what writer \(writer.id) could have published")
            if i == writer.lastAck + 1 { unacknowledgedDelivered += 1 }
            #expect(item.url?.absoluteString == "https://example.com/\(title)")
            if i % 3 == 0 {
                #expect(item.attachments.count == 1)
                if let file = item.attachments.first {
                    #expect((try? Data(contentsOf: file)) == Data(String(repeating: title + ";", count: 64).utf8), "attachment of \(title) is whole")
                }
            } else {
                #expect(item.attachments.isEmpty)
            }
        }
        var lost = 0
        var acknowledgedItems = 0
        for writer in writers.values {
            acknowledgedItems += writer.lastAck
            for i in stride(from: 1, through: writer.lastAck, by: 1) where !seen.contains("\(writer.id)-\(i)") { lost += 1 }
        }
        #expect(lost == 0, "acknowledged items lost")
        #expect(duplicates == 0, "items delivered twice")
        let stagingAfter = try FileManager.default.contentsOfDirectory(atPath: staging.path)
        #expect(stagingAfter.isEmpty, "stale staging is removed by a drain: \(stagingAfter)")
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: inbox.directory.appendingPathComponent("Quarantine").path)
        #expect(quarantined.isEmpty, "no published item was unreadable: \(quarantined)")
        #expect(sandbox.outsideContents().isEmpty)

        report("crash: \(all.count) writers SIGKILLed in \(String(format: "%.1f", killPhase)) s (\(lanes) at a time); "
            + "\(acknowledgedSets) acknowledged defaults writes, \(acknowledgedItems) acknowledged enqueues, \(acknowledgedSecrets) acknowledged keychain saves "
            + "and \(observerWrites) acknowledged writes from observers' handlers, 0 lost; "
            + "\(inFlightCommitted) unacknowledged saves and \(unacknowledgedDelivered) unacknowledged items committed whole; "
            + "\(temporaries.count) suite temporaries, \(keychainTemporaries.count) keychain temporaries and \(stagingLeft) staging entries left by kills, all ignored then removed; duplicates \(duplicates)")
    }
}
