import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import ShareInbox
import DeviceTestSupport
import TestSupport

/// The share flow with real processes: the built ShareFlowDemo binary in its
/// `extension` and `app` roles, spawned as the Notes targets of a simulated device.
/// Serialized: each test already runs many processes on the shared cores.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads) struct ShareFlowProcessTests {
    let device: SimulatedDevice
    let notes: NotesExample
    let binary: URL

    init() throws {
        device = try SimulatedDevice(name: "ShareFlowProcessTests")
        notes = try NotesExample()
        binary = try Demo.binary()
    }

    @Test func eightExtensionsShareWhileTheAppDrains() throws {
        let app = try device.launch(binary, Demo.app(["--watch", "--until", "200", "--timeout", "60"]), as: notes.app)
        #expect(app.waitForErrorLine(timeout: 30) { $0.hasPrefix("watching") } != nil)
        let extensions = try (1...8).map { k in
            try device.launch(binary, Demo.share("https://example.com/ext\(k)", count: 25), as: notes.shareExtension)
        }
        var shared: [String: UInt64] = [:]
        for process in extensions {
            let outcome = process.wait(timeout: 120)
            #expect(outcome.succeeded, "\(outcome.standardError)")
            shared.merge(Demo.shared(outcome.outputLines)) { a, _ in a }
        }
        #expect(shared.count == 200)
        #expect(Set(shared.values).count == 200)
        let outcome = app.wait(timeout: 60)
        #expect(outcome.succeeded, "app: \(outcome.standardError)")
        let items = Demo.received(outcome.outputLines)
        let urls = Demo.urls(items)
        #expect(urls.count == 200)
        #expect(Set(urls) == Set(shared.keys))
        #expect(Demo.sequences(items) == Demo.sequences(items).sorted())
        #expect(items.allSatisfy { $0["sender"] as? String == "ai.systenics.notes.share" })
        // A second launch finds nothing left.
        let again = try device.spawn(binary, Demo.app(), as: notes.app)
        #expect(again.succeeded && again.outputLines.isEmpty)
    }

    @Test func theAppAndTheWidgetDrainConcurrentlyWithoutSharingAnItem() throws {
        let drainers = try [notes.app, notes.widget].map { target in
            try device.launch(binary, Demo.app(["--watch", "--timeout", "60"]), as: target)
        }
        for drainer in drainers { #expect(drainer.waitForErrorLine(timeout: 30) { $0.hasPrefix("watching") } != nil) }
        let extensions = try (1...4).map { k in
            try device.launch(binary, Demo.share("https://example.com/ext\(k)", count: 30), as: notes.shareExtension)
        }
        var shared = Set<String>()
        for process in extensions {
            let outcome = process.wait(timeout: 120)
            #expect(outcome.succeeded, "\(outcome.standardError)")
            shared.formUnion(Demo.shared(outcome.outputLines).keys)
        }
        #expect(shared.count == 120)
        // Liveness: both watchers together take everything within a generous deadline.
        let deadline = Date().addingTimeInterval(20)
        while drainers.map({ Demo.received($0.outputLines).count }).reduce(0, +) < shared.count && Date() < deadline {
            usleep(50_000)
        }
        // An item counts as received when its line is printed, but its delivery is
        // recorded just after the handler returns. A drainer stopped in between is an
        // app killed mid-handler: the other drainer rightly gets that item again
        // (delivery is at least once). So stop them only once no drain is running:
        // no session directory left in Claims/.
        let claims = try device.containerLocation(for: NotesExample.groupIdentifier)
            .appendingPathComponent("Library/Application Support/Inbox/Claims")
        func drainsRunning() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: claims.path)) ?? []).filter { !$0.hasPrefix(".") }.count
        }
        while drainsRunning() > 0 && Date() < deadline.addingTimeInterval(20) { usleep(20_000) }
        let outcomes = drainers.map { drainer -> ProcessOutcome in
            drainer.kill(SIGTERM)
            return drainer.wait(timeout: 30)
        }
        let byDrainer = outcomes.map { Demo.urls(Demo.received($0.outputLines)) }
        for outcome in outcomes {
            let errors = outcome.standardError.split(separator: "\n").filter { !$0.hasPrefix("watching") }
            #expect(errors.isEmpty, "a drainer reported: \(errors.joined(separator: " | "))")
        }
        #expect(Set(byDrainer[0]).isDisjoint(with: byDrainer[1]))
        #expect(byDrainer[0].count + byDrainer[1].count == 120)
        #expect(Set(byDrainer[0] + byDrainer[1]) == shared)
        for outcome in outcomes {
            let sequences = Demo.sequences(Demo.received(outcome.outputLines))
            #expect(sequences == sequences.sorted())
        }
    }

    @Test(.tags(.killed)) func extensionsKilledMidEnqueueLoseNothingTheyReportedAndPublishNothingHalfWritten() throws {
        let (payload, checksum) = try Demo.payload(device, size: 512 * 1024)
        let size = 512 * 1024
        var confirmed: [String: UInt64] = [:]   // items whose enqueue returned (line printed)
        var exitedZero = 0
        var killed = 0
        // Processes sharing many items each, killed at random moments...
        let batch = try (1...4).map { k in
            try device.launch(binary, Demo.share("https://example.com/batch\(k)", count: 400, file: payload), as: notes.shareExtension)
        }
        for process in batch {
            // Once it is sharing, most of its time is spent inside enqueue.
            _ = process.waitForLine(timeout: 30) { $0.hasPrefix("shared ") }
            usleep(UInt32.random(in: 0...60_000))
            process.kill()
        }
        // ...and single-share processes, each killed at a random moment of its short life.
        var singles: [LaunchedProcess] = []
        for k in 1...12 {
            let process = try device.launch(binary, Demo.share("https://example.com/single\(k)", file: payload), as: notes.shareExtension)
            usleep(UInt32.random(in: 10_000...90_000))
            process.kill()
            singles.append(process)
        }
        for process in batch + singles {
            let outcome = process.wait(timeout: 120)
            if outcome.signal == SIGKILL { killed += 1 }
            if outcome.succeeded { exitedZero += 1 }
            confirmed.merge(Demo.shared(outcome.outputLines)) { a, _ in a }
        }
        #expect(killed >= 4)
        let inbox = try device.containerLocation(for: Demo.group).appendingPathComponent("Library/Application Support/Inbox")
        // The kills did land mid-enqueue: writers left staging directories behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: inbox.appendingPathComponent("Staging").path).count
        #expect(leftovers >= 1)
        // The app drains everything, and removes the staging of the dead writers.
        let outcome = try device.spawn(binary, Demo.app(["--stale-staging-age", "0"]), as: notes.app)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        let items = Demo.received(outcome.outputLines)
        let urls = Demo.urls(items)
        #expect(Set(urls).count == urls.count, "an item was delivered twice")
        for url in confirmed.keys { #expect(urls.contains(url), "\(url) was shared (its enqueue returned) but never delivered") }
        for item in items {
            #expect(item["fileBytes"] as? Int == size && item["fileChecksum"] as? String == checksum, "a torn attachment was delivered: \(item)")
        }
        #expect(Demo.sequences(items) == Demo.sequences(items).sorted())
        #expect(SimulatedDevice.files(under: inbox.appendingPathComponent("Staging")).isEmpty, "staging of killed writers was not cleaned up")
        #expect(SimulatedDevice.files(under: inbox.appendingPathComponent("Items")).isEmpty)
        print("killed-writers test: \(killed) killed, \(leftovers) staging leftovers, \(exitedZero) exited 0, \(confirmed.count) confirmed, \(items.count) delivered")
    }

    @Test(.tags(.killed)) func anAppKilledMidDrainGetsTheUnfinishedItemsAgain() throws {
        try device.run(as: notes.shareExtension) { resolver in
            let inbox = try ShareInbox(groupIdentifier: Demo.group, resolver: resolver)
            for i in 1...5 { try inbox.enqueue(SharedItem(url: URL(string: "https://example.com/\(i)"))) }
        }
        // The app prints each item as its handler starts, then pauses in the handler.
        let app = try device.launch(binary, Demo.app(["--handler-delay", "0.3"]), as: notes.app)
        // Item 3's line means items 1 and 2 were handled and removed; 3 is mid-handler.
        #expect(app.waitForLine(timeout: 30) { $0.contains("https://example.com/3") } != nil)
        app.kill()
        let killed = app.wait(timeout: 30)
        #expect(killed.signal == SIGKILL)
        #expect(Demo.urls(Demo.received(killed.outputLines)) == (1...3).map { "https://example.com/\($0)" })
        let next = try device.spawn(binary, Demo.app(), as: notes.app)
        #expect(next.succeeded, "\(next.standardError)")
        let items = Demo.received(next.outputLines)
        #expect(Demo.urls(items) == (3...5).map { "https://example.com/\($0)" })
        #expect(Demo.sequences(items) == [3, 4, 5])
    }

    @Test func anExtensionWithoutTheEntitlementFailsAndWritesNothing() throws {
        let (payload, _) = try Demo.payload(device, size: 1000)
        let outcome = try device.spawn(binary, Demo.share("https://example.com/x", file: payload), as: notes.shareExtensionWithoutGroup)
        #expect(outcome.status != 0)
        #expect(outcome.outputLines.isEmpty)
        let errorLines = outcome.standardError.split(separator: "\n")
        #expect(errorLines.count == 1)
        #expect(outcome.standardError.contains("not entitled to the App Group group.ai.systenics.notes"))
        #expect(SimulatedDevice.files(under: device.root).isEmpty)

        // The same with --entitlements naming the shipped file, and with a bad group.
        let examples = device.scratch.appendingPathComponent("Examples")
        let files = try NotesExample.writeEntitlementsFiles(to: examples)
        let withFile = try device.spawn(binary, ["extension", "--root", device.root.path, "--group", Demo.group,
                                                 "--entitlements", try #require(files["NotesShareWithoutGroup.entitlements"]).path,
                                                 "--bundle-id", "ai.systenics.notes.share", "--url", "https://example.com/y"], as: nil)
        #expect(withFile.status == 1 && withFile.standardError.split(separator: "\n").count == 1)
        let badGroup = try device.spawn(binary, ["extension", "--root", device.root.path, "--group", "group.../x", "--url", "https://example.com/z"], as: nil)
        #expect(badGroup.status == 1 && badGroup.standardError.split(separator: "\n").count == 1, "\(badGroup.standardError)")
        #expect(SimulatedDevice.files(under: device.root).isEmpty)
    }

    @Test func aRunningAppLearnsOfAShareWithoutPolling() throws {
        let app = try device.launch(binary, Demo.app(["--watch", "--until", "1", "--timeout", "60"]), as: notes.app)
        #expect(app.waitForErrorLine(timeout: 30) { $0.hasPrefix("watching") } != nil)
        let share = try device.spawn(binary, Demo.share("https://example.com/live"), as: notes.shareExtension)
        #expect(share.succeeded)
        let sharedAt = Date()
        // Generous deadline: the signal is inotify on the inbox, not a polling loop.
        let line = app.waitForLine(timeout: 2) { $0.contains("https://example.com/live") }
        #expect(line != nil, "the app did not print the share within 2 s")
        print("watch latency (extension exit to app line): \(Int(Date().timeIntervalSince(sharedAt) * 1000)) ms")
        #expect(app.wait(timeout: 30).succeeded)
    }

    @Test func theScenarioReportsNothingLostOrDuplicated() throws {
        let outcome = try device.spawn(binary, ["run", "--extensions", "3", "--items", "4", "--json"], as: nil, timeout: 120)
        #expect(outcome.succeeded, "\(outcome.standardOutput)\n\(outcome.standardError)")
        let last = try #require(outcome.outputLines.last)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(summary["shared"] as? Int == 12)
        #expect(summary["received"] as? Int == 12)
        #expect(summary["lost"] as? Int == 0)
        #expect(summary["duplicated"] as? Int == 0)
        let refused = try #require(Demo.received(outcome.outputLines).first { $0["event"] as? String == "unentitledExtension" })
        #expect(refused["containerURL"] is NSNull && refused["refusedCleanly"] as? Bool == true)
    }

    @Test func everyRoleHasHelpAndBadArgumentsExit64() throws {
        for role in [[], ["run"], ["extension"], ["app"]] {
            let help = try device.spawn(binary, role + ["--help"], as: nil)
            #expect(help.succeeded && help.standardOutput.contains("usage: ShareFlowDemo"), "\(role)")
        }
        for arguments in [["extension", "--group"], ["app", "--bogus"], ["run", "--items", "zero"], ["fly"], ["extension", "--group", Demo.group]] {
            let outcome = try device.spawn(binary, arguments, as: nil)
            #expect(outcome.status == 64, "\(arguments): \(outcome.status) \(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1, "\(arguments)")
        }
    }
}
