import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// A sandboxed target forging what presenters in other processes hear through
/// the device's coordination tree (which every target may write): change and move
/// records in an item's signal file. No presenter follows a claim the file system
/// does not confirm (Signals/README.md, "What a presenter believes"); requests
/// are PresenterSocketsUnderAttackTests'.
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail), .serialized)
struct PresenterRecordsUnderAttackTests {
    /// A change-signal record line as a writer writes it.
    static func line(_ sequence: Int, _ kind: String, _ path: String, _ newPath: String? = nil) -> String {
        (["f0f0", String(sequence), "0", kind, ChangeSignal.encode(path)] + (newPath.map { [ChangeSignal.encode($0)] } ?? [])).joined(separator: " ")
    }

    /// The share extension (sandboxed) writes `lines` as the signal file of `item`
    /// and posts its name on the device's table, as a writer would.
    static func forge(_ lines: [String], for item: URL, on device: SimulatedDevice, as forger: SimulatedTarget) throws {
        let signal = try #require(try FileCoordinator.changeSignalURL(for: item))
        let written = try device.spawn(built: "SandboxProbe", ["write", signal.path, lines.joined(separator: "\n") + "\n"], as: forger)
        #expect(written.outputLines == ["ok " + signal.path], "\(written)")
        let posted = try device.spawn(built: "SignalProbe", ["post", "--root", device.root.path, "--name", ChangeSignal.signalName(ofFile: signal.path)], as: forger)
        #expect(posted.succeeded, "\(posted)")
    }

    @Test("a forged move record leads no presenter in the test process anywhere: a decoy of the forger's own, an empty place, a source still there; a forged notice about another item is dropped")
    func forgedMovesAreNotFollowedHere() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let draft = try Self.draft("private draft", of: reader, on: device)
            let (group, decoy) = try Self.plantDecoy(of: reader, on: device)
            let presenter = RecordingPresenter(draft)
            NSFileCoordinator.addFilePresenter(presenter)
            defer { NSFileCoordinator.removeFilePresenter(presenter) }
            try Self.forge([
                Self.line(1, "move", draft.path, decoy.path),                               // a file of the forger's own
                Self.line(2, "move", draft.path, group.appendingPathComponent("none").path), // nothing there
                Self.line(3, "move", draft.path, draft.path),                               // the source still holds it
                Self.line(4, "change", "/etc/passwd"),                                      // neither the item nor below it
                Self.line(5, "move", "/etc/passwd", decoy.path),
                Self.line(6, "change", draft.path),                                         // true of the item: a spurious notice at worst
            ], for: draft, on: device, as: reader.share)
            // The last record reaches the presenter after every earlier one was judged.
            #expect(presenter.wait(seconds: 30) { $0.contains("didChange") }, "\(presenter.events)")
            #expect(!presenter.events.contains { $0.hasPrefix("didMove") || $0.hasPrefix("subitem") }, "\(presenter.events)")
            #expect(presenter.events == ["didChange"], "\(presenter.events)")
        }
    }

    @Test("the app's presenter (sandboxed) does not follow a forged move of its draft into the group, nor a real one out of its reach, and saves its draft where it was")
    func theAppsPresenterStaysWithItsDraft() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let draft = try Self.draft("first", of: reader, on: device)
            let (_, decoy) = try Self.plantDecoy(of: reader, on: device)
            let app = try device.launch(built: "AppGroupProbe", ["ns-present", "--item", draft.path, "--unsaved", "private draft"], as: reader.app)
            defer { app.kill(); app.wait(timeout: 10) }
            #expect(app.waitForLine("ready", timeout: 60), "\(app.standardError)")
            // A real move by the device to where the app cannot reach: the same file,
            // its source gone, but out of the app's sandbox.
            let away = device.outside.appendingPathComponent("draft.txt")
            try FileManager.default.moveItem(at: draft, to: away)
            try Self.forge([
                Self.line(1, "move", draft.path, decoy.path),
                Self.line(2, "move", draft.path, away.path),
                Self.line(3, "change", draft.path),
            ], for: draft, on: device, as: reader.share)
            #expect(app.waitForLine("didChange", timeout: 60), "\(app.outputLines) \(app.standardError)")
            #expect(!app.outputLines.contains { $0.hasPrefix("didMove") }, "\(app.outputLines)")
            // Standard error is read on its own: wait for the line rather than look once.
            #expect(app.waitForErrorLine(timeout: 60) { $0.contains("was not acted on") } != nil, "the refusal names the signal file: \(app.standardError)")
            // Its save still goes where it was; the group never gets the draft.
            try FileManager.default.moveItem(at: away, to: draft)
            var error: NSError?
            NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: draft, options: [], error: &error) { _ in }
            #expect(error == nil)
            #expect(app.waitForLine("saved", timeout: 60), "\(app.outputLines) \(app.standardError)")
            #expect(try String(contentsOf: draft, encoding: .utf8) == "private draft")
            #expect(try String(contentsOf: decoy, encoding: .utf8) == "the forger's")
        }
    }

    @Test("a signal file past its limit, or full of garbage, costs one bounded read: the presenter assumes a change, and the file is named")
    func hugeAndGarbageRecordsAreBounded() throws {
        try SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let draft = try Self.draft("first", of: reader, on: device)
            let app = try device.launch(built: "AppGroupProbe", ["ns-present", "--item", draft.path], as: reader.app)
            defer { app.kill(); app.wait(timeout: 10) }
            #expect(app.waitForLine("ready", timeout: 60), "\(app.standardError)")
            let signal = try #require(try FileCoordinator.changeSignalURL(for: draft))
            // Garbage lines and one record too long to be a path: nothing is told but
            // the one well-formed record of the item.
            let junk = String(repeating: "\u{1}\u{7f} move % %% \n", count: 1000) + Self.line(7, "move", draft.path, String(repeating: "/x", count: 40_000))
            try Self.forge([junk, Self.line(8, "change", draft.path)], for: draft, on: device, as: reader.share)
            #expect(app.waitForLine("didChange", timeout: 60), "\(app.outputLines) \(app.standardError)")
            #expect(app.outputLines.filter { $0 == "didChange" }.count == 1 && !app.outputLines.contains { $0.hasPrefix("didMove") }, "\(app.outputLines)")
            // Past 1 MiB the file is not read: a change is assumed, and the file named.
            let filled = try device.spawn(built: "SandboxProbe", ["fill", signal.path, "97", String((1 << 20) + 100)], as: reader.share)
            #expect(filled.outputLines == ["ok"], "\(filled)")
            #expect(try device.spawn(built: "SignalProbe", ["post", "--root", device.root.path, "--name", ChangeSignal.signalName(ofFile: signal.path)], as: reader.share).succeeded)
            #expect(app.waitForErrorLine(timeout: 60) { $0.contains("were not read") && $0.contains(signal.path) } != nil, "\(app.standardError)")
            #expect(eventually(seconds: 60) { app.outputLines.filter { $0 == "didChange" }.count == 2 }, "\(app.outputLines)")
        }
    }

    /// `<pid>-<start time>` as the presenters' files name a process.
    static func processKey(_ pid: pid_t) throws -> String {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return "\(pid)-\(fields[19])"
    }

    /// The app's draft in its Documents, holding `text`.
    static func draft(_ text: String, of reader: ReaderTargets, on device: SimulatedDevice) throws -> URL {
        let documents = try reader.app.dataContainer(on: device).documents
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        let draft = documents.appendingPathComponent("draft.txt")
        try Data(text.utf8).write(to: draft)
        return draft
    }

    /// The group's container (made as the app) and a `draft.txt` the share extension planted in it.
    static func plantDecoy(of reader: ReaderTargets, on device: SimulatedDevice,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> (group: URL, decoy: URL) {
        let group = try device.containerLocation(for: ReaderTargets.group)
        _ = try device.run(as: reader.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: ReaderTargets.group) }
        let decoy = group.appendingPathComponent("draft.txt")
        let planted = try device.spawn(built: "SandboxProbe", ["write", decoy.path, "the forger's"], as: reader.share)
        #expect(planted.outputLines == ["ok " + decoy.path], "\(planted)", sourceLocation: sourceLocation)
        return (group, decoy)
    }
}
