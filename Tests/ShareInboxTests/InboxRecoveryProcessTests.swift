import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import ShareInbox
import DeviceTestSupport
import TestSupport

/// The inbox's recovery, each case with the real ShareFlowDemo binary: kills at two
/// moments in a row, crafted sequence numbers, items that cannot be removed or read,
/// and attachments the app could not take. Serialized: each runs several processes.
@Suite(.tags(.multiprocess, .hostile), .serialized, .dedicatedThreads) struct InboxRecoveryProcessTests {
    let device: SimulatedDevice
    let notes: NotesExample
    let binary: URL

    init() throws {
        device = try SimulatedDevice(name: "InboxRecoveryProcessTests")
        notes = try NotesExample()
        binary = try Demo.binary()
    }

    var inbox: URL {
        get throws { try device.containerLocation(for: Demo.group).appendingPathComponent("Library/Application Support/Inbox", isDirectory: true) }
    }

    func share(_ url: String, file: URL? = nil) throws -> ProcessOutcome {
        try device.spawn(binary, Demo.share(url, file: file), as: notes.shareExtension)
    }

    func drain(_ extra: [String] = [], timeout: TimeInterval = 60) throws -> ProcessOutcome {
        try device.spawn(binary, Demo.app(extra), as: notes.app, timeout: timeout)
    }

    /// Plants a file-form item (its record) at `Items/<number>`, as a foreign process could.
    func plantItem(_ number: UInt64, url: String) throws {
        let record = #"{"attachments":[],"date":0,"kind":"public.url","url":"\#(url)","version":1}"#
        try Data(record.utf8).write(to: try inbox.appendingPathComponent("Items/" + Self.itemName(number)))
    }

    static func itemName(_ n: UInt64) -> String {
        let digits = String(n)
        return String(repeating: "0", count: 20 - digits.count) + digits
    }

    static func bootIdentifier() throws -> String {
        try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func entries(_ sub: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: try inbox.appendingPathComponent(sub).path).sorted()
    }

    // MARK: Finding 4

    @Test("finding 4: a counter left one behind by a kill gives no number twice, and a put-back after a second kill replaces nothing", .tags(.killed))
    func aCounterLeftBehindGivesNoNumberTwice() throws {
        let first = try share("https://example.com/A")
        #expect(Demo.shared(first.outputLines)["https://example.com/A"] == 1)
        // Exactly what a SIGKILL between publishing item 1 and advancing the counter
        // leaves (the old order of the two steps): the counter one behind.
        try Data("\(try Self.bootIdentifier()) \(Self.itemName(0))\n".utf8).write(to: try inbox.appendingPathComponent("Sequence"))
        // A drain takes item 1 and is killed in its handler.
        let app = try device.launch(binary, Demo.app(["--handler-delay", "30"]), as: notes.app)
        #expect(app.waitForLine(timeout: 30) { $0.contains("https://example.com/A") } != nil)
        app.kill()
        #expect(app.wait(timeout: 30).signal == SIGKILL)
        // The next share must not get number 1 again...
        let second = try share("https://example.com/B")
        #expect(second.succeeded, "\(second.standardError)")
        let numberB = try #require(Demo.shared(second.outputLines)["https://example.com/B"])
        #expect(numberB != 1, "number 1 was given out twice")
        // ...and putting item 1 back must not replace B: both arrive, once each.
        let next = try drain()
        #expect(next.succeeded, "\(next.standardError)")
        #expect(Demo.urls(Demo.received(next.outputLines)) == ["https://example.com/A", "https://example.com/B"])
        #expect(try drain().outputLines.isEmpty)
    }

    @Test("finding 4: a kill storm (extensions killed while an app drains, drains killed in their handler) delivers every acknowledged share once, numbers unique", .tags(.killed))
    func killStormDeliversEveryAcknowledgedShareOnce() throws {
        let (payload, _) = try Demo.payload(device, size: 4096)
        let stormSeconds = 4.0
        let watcher = try device.launch(binary, Demo.app(["--watch", "--timeout", String(Int(stormSeconds) + 4)]), as: notes.app)
        #expect(watcher.waitForErrorLine(timeout: 30) { $0.hasPrefix("watching") } != nil)
        var extensions: [LaunchedProcess] = []
        var drains: [LaunchedProcess] = []
        let start = Date()
        var round = 0
        while Date().timeIntervalSince(start) < stormSeconds {
            round += 1
            let ext = try device.launch(binary, Demo.share("https://example.com/r\(round)", count: 40, file: round % 2 == 0 ? payload : nil),
                                        as: notes.shareExtension)
            let drainer = try device.launch(binary, Demo.app(round % 3 == 0 ? [] : ["--handler-delay", "0.02"]), as: notes.app)
            _ = ext.waitForLine(timeout: 30) { $0.hasPrefix("shared ") }
            usleep(UInt32.random(in: 0...30_000))
            ext.kill()
            usleep(UInt32.random(in: 0...30_000))
            drainer.kill()
            extensions.append(ext)
            drains.append(drainer)
        }
        var numbers: [UInt64: String] = [:]
        var reused = 0
        var acknowledged = Set<String>()
        for ext in extensions {
            for (url, number) in Demo.shared(ext.wait(timeout: 60).outputLines) {
                acknowledged.insert(url)
                if let other = numbers[number], other != url { reused += 1 }
                numbers[number] = url
            }
        }
        // Completed deliveries: every line of a process that ended by itself; all but
        // the last of a killed one (its last item may be mid-handler: delivered again).
        var completed: [String: Int] = [:]
        var maybeRepeated = Set<String>()
        func count(_ outcome: ProcessOutcome) {
            let urls = Demo.urls(Demo.received(outcome.outputLines))
            let killed = outcome.signal != nil
            for (index, url) in urls.enumerated() {
                if killed && index == urls.count - 1 { maybeRepeated.insert(url) } else { completed[url, default: 0] += 1 }
            }
        }
        var killedDrains = 0
        for drainer in drains {
            let outcome = drainer.wait(timeout: 60)
            if outcome.signal != nil { killedDrains += 1 } else { #expect(outcome.succeeded, "\(outcome.standardError)") }
            count(outcome)
        }
        let watched = watcher.wait(timeout: 60)
        #expect(watched.status == 0 && watched.signal == nil, "\(watched.standardError)")
        count(watched)
        let final = try drain()
        #expect(final.succeeded, "\(final.standardError)")
        count(final)

        #expect(reused == 0, "sequence numbers given out twice")
        let lost = acknowledged.filter { completed[$0] == nil && !maybeRepeated.contains($0) }
        #expect(lost.isEmpty, "acknowledged shares never delivered: \(lost.sorted().prefix(5))")
        let twice = completed.filter { $0.value > 1 }
        #expect(twice.isEmpty, "delivered (and completed) more than once: \(twice.keys.sorted().prefix(5))")
        // Kills mid-removal leave nothing that looks damaged, and dead drains leave nothing.
        #expect(try entries("Quarantine").isEmpty, "false alarms in Quarantine/")
        #expect(try entries("Claims").isEmpty, "leftovers of killed drains in Claims/")
        #expect(try entries("Items").isEmpty)
        print("inbox kill storm: \(extensions.count) extensions and \(killedDrains) drains SIGKILLed, \(acknowledged.count) acknowledged shares, "
              + "\(numbers.count) numbers, 0 reused, 0 lost, 0 quarantined")
    }

    @Test("drains SIGKILLed while removing delivered items leave nothing for Quarantine/: a cut-short removal is finished, not taken for damage", .tags(.killed))
    func drainsKilledMidRemovalLeaveNoFalseAlarms() throws {
        // Items with many attachments, so that removal is a large part of a drain's time.
        let sources = try (1...64).map { k -> SharedItem.Attachment in
            let url = device.scratch.appendingPathComponent("part\(k).txt")
            try Data(String(repeating: "\(k);", count: 32).utf8).write(to: url)
            return .init(fileURL: url)
        }
        let total = 100
        try device.run(as: notes.shareExtension) { resolver in
            let inbox = try ShareInbox(groupIdentifier: Demo.group, resolver: resolver, durable: false)
            for i in 1...total { try inbox.enqueue(SharedItem(url: URL(string: "https://example.com/\(i)"), attachments: sources)) }
        }
        var completed: [String: Int] = [:]
        var seen = Set<String>()
        var kills = 0
        while kills < 60 {
            let drainer = try device.launch(binary, Demo.app(), as: notes.app)
            guard drainer.waitForLine(timeout: 30, where: { _ in true }) != nil else { _ = drainer.wait(timeout: 30); break }
            usleep(UInt32.random(in: 0...15_000))
            drainer.kill()
            let outcome = drainer.wait(timeout: 30)
            if outcome.signal != nil { kills += 1 }
            let urls = Demo.urls(Demo.received(outcome.outputLines))
            for (index, url) in urls.enumerated() {
                seen.insert(url)
                if outcome.signal == nil || index < urls.count - 1 { completed[url, default: 0] += 1 }
            }
        }
        let final = try drain()
        #expect(final.succeeded, "\(final.standardError)")
        for url in Demo.urls(Demo.received(final.outputLines)) {
            seen.insert(url)
            completed[url, default: 0] += 1
        }
        let quarantined = try entries("Quarantine")
        #expect(quarantined.isEmpty, "\(quarantined.count) false alarms in Quarantine/: \(quarantined.prefix(3))")
        #expect(seen.count == total)
        #expect(completed.values.allSatisfy { $0 == 1 }, "an item completed twice")
        #expect(try entries("Claims").isEmpty && entries("Items").isEmpty)
        print("drains killed mid-removal: \(kills) kills, \(total) items of 64 attachments, \(quarantined.count) quarantined")
    }

    // MARK: Finding 6

    @Test("finding 6 (and issue 23, finding 4): an item planted as UInt64.max is delivered once, under a fresh number, and never ends the numbering; a Sequence file set to UInt64.max ends it with a typed error, no wrap, no spin")
    func theLastSequenceNumberEndsNumberingWithoutWrapOrSpin() throws {
        #expect(try share("https://example.com/first").succeeded)
        try plantItem(UInt64.max, url: "https://example.com/max")
        let drained = try drain(timeout: 30)
        #expect(drained.succeeded && !drained.timedOut, "\(drained.status) \(drained.standardError)")
        let items = Demo.received(drained.outputLines)
        #expect(Demo.urls(items) == ["https://example.com/first", "https://example.com/max"])
        // Planted far above the counter: its number is not believed, the item is kept under the next one.
        #expect(!drained.outputLines.joined().contains("18446744073709551615"), "\(drained.outputLines)")
        let after = try share("https://example.com/after")
        #expect(after.succeeded, "\(after.standardError)")
        #expect(Demo.urls(Demo.received(try drain(timeout: 30).outputLines)) == ["https://example.com/after"])
        // The counter itself at its end: the next share is refused, saying what to do, and adds nothing.
        try Data("\(try Self.bootIdentifier()) 18446744073709551615\n".utf8).write(to: try inbox.appendingPathComponent("Sequence"))
        let refused = try share("https://example.com/again")
        #expect(refused.status == 1 && refused.outputLines.isEmpty)
        #expect(refused.standardError.contains("last sequence number") && refused.standardError.contains("18446744073709551615"), "\(refused.standardError)")
        #expect(try entries("Items").isEmpty)
        let again = try drain(timeout: 30)
        #expect(again.succeeded && again.outputLines.isEmpty, "\(again.standardError)")
    }

    // MARK: Finding 7

    /// Drains three times; returns the urls each delivered.
    func threeDrains(prefix: [String] = []) throws -> [[String]] {
        try (1...3).map { _ in
            // Behind a prefix (setpriv, as another user who owns the root) the drain gets
            // the app's identity by its environment alone: a launch as the target would
            // prepare its home and sandbox as this test's user, whom that root refuses.
            let process = prefix.isEmpty
                ? try device.launch(binary, Demo.app(), as: notes.app)
                : try LaunchedProcess(executable: URL(fileURLWithPath: prefix[0]), arguments: Array(prefix.dropFirst()) + [binary.path] + Demo.app(),
                                      environment: device.environment(for: notes.app))
            let outcome = process.wait(timeout: 60)
            #expect(outcome.succeeded, "\(outcome.status) \(outcome.standardError)")
            return Demo.urls(Demo.received(outcome.outputLines))
        }
    }

    @Test("finding 7: a delivered item whose directory nests deeper than PATH_MAX is quarantined, not delivered again, and the next item arrives")
    func anItemNestedDeeperThanPathMaxIsDeliveredOnce() throws {
        let (payload, _) = try Demo.payload(device, size: 100)
        #expect(try share("https://example.com/1", file: payload).succeeded)
        #expect(try share("https://example.com/2").succeeded)
        let item = try inbox.appendingPathComponent("Items/" + Self.itemName(1))
        // Nested with descriptors: 30 levels of 200-byte names make paths longer than
        // PATH_MAX (4096), which no path-based call can name.
        let level = String(repeating: "d", count: 200)
        var fd = open(item.path, O_RDONLY | O_DIRECTORY)
        var depth = 0
        while depth < 30 && fd >= 0 {
            guard mkdirat(fd, level, 0o700) == 0 else { break }
            let sub = openat(fd, level, O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = sub
            depth += 1
        }
        if fd >= 0 { close(fd) }
        #expect(depth == 30 && item.path.utf8.count + depth * 201 > Int(PATH_MAX))
        defer { removeDeviceTree() }
        let rounds = try threeDrains()
        #expect(rounds.flatMap { $0 } == ["https://example.com/1", "https://example.com/2"], "\(rounds)")
        #expect(try entries("Quarantine").count == 1)
        #expect(try entries("Claims").isEmpty)
    }

    /// The device's directory holds what FileManager cannot remove (paths over
    /// PATH_MAX, names that are not UTF-8).
    func removeDeviceTree() {
        _ = try? LaunchedProcess.run(URL(fileURLWithPath: "/bin/rm"), ["-rf", device.root.path])
    }

    @Test("finding 7: for a user who cannot remove a read-only subdirectory, the delivered item is quarantined and the next one arrives",
          .enabled(if: Privileges.canActAsAnotherUser, "needs root and setpriv to run the drain as another user (CI has both)"))
    func anItemWithAReadOnlySubdirectoryIsDeliveredOnce() throws {
        let (payload, _) = try Demo.payload(device, size: 100)
        #expect(try share("https://example.com/1", file: payload).succeeded)
        #expect(try share("https://example.com/2").succeeded)
        let locked = try inbox.appendingPathComponent("Items/\(Self.itemName(1))/locked", isDirectory: true)
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: locked.appendingPathComponent("x"))
        // The drain runs as nobody (65534), owning the whole root; "locked" is r-x.
        #expect(chmod(device.root.deletingLastPathComponent().path, 0o711) == 0)
        #expect(try LaunchedProcess.run(URL(fileURLWithPath: "/bin/chown"), ["-R", "65534:65534", device.root.path]).status == 0)
        #expect(chmod(locked.path, 0o500) == 0)
        let rounds = try threeDrains(prefix: [Privileges.setpriv ?? "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        #expect(rounds.flatMap { $0 } == ["https://example.com/1", "https://example.com/2"], "\(rounds)")
        let quarantined = try entries("Quarantine")
        #expect(quarantined.count == 1 && quarantined.first?.hasPrefix(Self.itemName(1) + ".delivered") == true, "\(quarantined)")
        #expect(try entries("Claims").isEmpty)
    }

    // MARK: Finding 8

    @Test("finding 8: an attachment over the app's limit is refused at enqueue, and one planted anyway never blocks the items behind it")
    func anAttachmentTheAppCannotReadNeverBlocksTheInbox() throws {
        let big = device.scratch.appendingPathComponent("big.bin")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        #expect(truncate(big.path, 70_000_000) == 0) // sparse: 70 MB without writing them
        #expect(try share("https://example.com/before").succeeded)
        let refused = try share("https://example.com/big", file: big)
        #expect(refused.status == 1 && refused.outputLines.isEmpty, "the extension accepted a 70 MB attachment")
        for part in [big.path, "70000000", "67108864"] {
            #expect(refused.standardError.contains(part), "the refusal names \(part): \(refused.standardError)")
        }
        // A foreign process plants such an item anyway, then a good share follows.
        let planted = try inbox.appendingPathComponent("Items/" + Self.itemName(2), isDirectory: true)
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: planted.appendingPathComponent("big.bin").path, contents: nil))
        #expect(truncate(planted.appendingPathComponent("big.bin").path, 70_000_000) == 0)
        let record = #"{"attachments":[{"name":"big.bin","size":70000000}],"date":0,"kind":"public.url","url":"https://example.com/planted","version":1}"#
        try Data(record.utf8).write(to: planted.appendingPathComponent("item.json"))
        #expect(try share("https://example.com/after").succeeded)
        for _ in 1...2 {
            let drained = try drain()
            #expect(drained.succeeded, "\(drained.standardError)")
            if !Demo.received(drained.outputLines).isEmpty {
                #expect(Demo.urls(Demo.received(drained.outputLines)) == ["https://example.com/before", "https://example.com/after"])
            }
        }
        #expect(try entries("Quarantine").count == 1)
        #expect(try entries("Items").isEmpty)
    }

    // MARK: Exact names, deep records, lock files of dead drains

    @Test("attachments named caf\\u{E9}.txt and cafe\\u{301}.txt are two files, both delivered")
    func attachmentNamesAreComparedAsBytes() throws {
        let composed = device.scratch.appendingPathComponent("caf\u{E9}.txt")
        let decomposed = device.scratch.appendingPathComponent("cafe\u{301}.txt")
        try Data("composed".utf8).write(to: composed)
        try Data("decomposed!".utf8).write(to: decomposed)
        try device.run(as: notes.shareExtension) { resolver in
            let inbox = try ShareInbox(groupIdentifier: Demo.group, resolver: resolver)
            try inbox.enqueue(SharedItem(url: URL(string: "https://example.com/cafe"),
                                         attachments: [.init(fileURL: composed), .init(fileURL: decomposed)]))
        }
        let drained = try drain()
        #expect(drained.succeeded, "\(drained.standardError)")
        let files = try #require(Demo.received(drained.outputLines).first?["files"] as? [String])
        #expect(Set(files.map { Array($0.utf8) }) == [Array("caf\u{E9}.txt".utf8), Array("cafe\u{301}.txt".utf8)])
    }

    @Test("a record nested 500,000 deep is quarantined without crashing the drain; the next item arrives")
    func aDeeplyNestedRecordIsQuarantined() throws {
        #expect(try share("https://example.com/before").succeeded)
        try Data(repeating: UInt8(ascii: "["), count: 500_000).write(to: try inbox.appendingPathComponent("Items/" + Self.itemName(2)))
        #expect(try share("https://example.com/after").succeeded)
        let drained = try drain()
        #expect(drained.succeeded, "\(drained.standardError)")
        #expect(Demo.urls(Demo.received(drained.outputLines)) == ["https://example.com/before", "https://example.com/after"])
        #expect(try entries("Quarantine").count == 1)
    }

    @Test("what no drain can handle in Claims/ (a name that is not UTF-8, a planted file) is left or set aside, never stopping the drain")
    func unhandledClaimsNeverStopTheDrain() throws {
        #expect(try share("https://example.com/A").succeeded)
        #expect(try share("https://example.com/B").succeeded)
        // A dead drain's claims directory holding an entry whose name is not UTF-8
        // (items without attachments are journal records now, never claimed)...
        let dead = try inbox.appendingPathComponent("Claims/12345-dead", isDirectory: true)
        try FileManager.default.createDirectory(at: dead, withIntermediateDirectories: false)
        defer { removeDeviceTree() }
        let raw = (Array(dead.path.utf8) + [0x2F, 0xFF, 0xFE]).map { CChar(bitPattern: $0) } + [0]
        let fd = open(raw, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        close(fd)
        // ...and a file planted where a session directory would be.
        #expect(FileManager.default.createFile(atPath: try inbox.appendingPathComponent("Claims/planted").path, contents: Data("x".utf8)))
        let drained = try drain()
        #expect(drained.succeeded, "\(drained.standardError)")
        #expect(Demo.urls(Demo.received(drained.outputLines)) == ["https://example.com/A", "https://example.com/B"])
        #expect(try share("https://example.com/C").succeeded)
        #expect(Demo.urls(Demo.received(try drain().outputLines)) == ["https://example.com/C"])
    }

    @Test("a sequence file padded to 1 MB is read by its first line: shares and drains go on")
    func aPaddedSequenceFileStopsNothing() throws {
        #expect(try share("https://example.com/A").succeeded)
        var padded = Data("\(try Self.bootIdentifier()) \(Self.itemName(1))\n".utf8)
        padded.append(Data(repeating: 0x20, count: 1 << 20))
        try padded.write(to: try inbox.appendingPathComponent("Sequence"))
        let second = try share("https://example.com/B")
        #expect(second.succeeded, "\(second.standardError)")
        #expect(Demo.shared(second.outputLines)["https://example.com/B"] == 2)
        let drained = try drain()
        #expect(drained.succeeded, "\(drained.standardError)")
        #expect(Demo.urls(Demo.received(drained.outputLines)) == ["https://example.com/A", "https://example.com/B"])
    }

    @Test("lock files of dead drains are removed, a live drain's are not", .tags(.killed))
    func lockFilesOfDeadDrainsAreRemoved() throws {
        #expect(try share("https://example.com/held").succeeded)
        // A live drain, in its handler: its session directory and lock file exist.
        let live = try device.launch(binary, Demo.app(["--handler-delay", "30"]), as: notes.app)
        #expect(live.waitForLine(timeout: 30) { $0.contains("https://example.com/held") } != nil)
        let liveEntries = try entries("Claims")
        #expect(liveEntries.count == 2, "\(liveEntries)")
        // What a drain killed before making its directory (or after removing it) leaves.
        let orphan = try inbox.appendingPathComponent("Claims/.4242-dead.lock")
        #expect(FileManager.default.createFile(atPath: orphan.path, contents: nil))
        #expect(try drain().outputLines.isEmpty)
        #expect(try entries("Claims") == liveEntries, "the orphan lock goes, the live drain's stay")
        live.kill()
        _ = live.wait(timeout: 30)
        let next = try drain()
        #expect(Demo.urls(Demo.received(next.outputLines)) == ["https://example.com/held"])
        #expect(try entries("Claims").isEmpty)
    }
}
