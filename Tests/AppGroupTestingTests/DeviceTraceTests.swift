import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import SharedDefaults
import Testing
import TestSupport

/// A traced device's timeline, with real processes. Every trace these
/// tests write goes through ``TraceValidator`` (the format's rules), and the share
/// flow's story is read back from it.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads)
struct DeviceTraceTests {
    /// The events of `trace` whose process is named `name`.
    static func events(_ events: [[String: Any]], ofProcessNamed name: String) -> [[String: Any]] {
        let pids = events.filter { $0["ph"] as? String == "M" && $0["name"] as? String == "process_name"
            && ($0["args"] as? [String: Any])?["name"] as? String == name }.compactMap { $0["pid"] as? Int }
        return events.filter { pids.contains(($0["pid"] as? Int) ?? -1) }
    }

    @Test("the share flow's story: the extension's enqueue, the app's delivery, and the arrow between them")
    func theShareFlowsStory() throws {
        let notes = try NotesExample()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        do {
            let device = try SimulatedDevice(name: "DeviceTraceTests", trace: .file(output))
            defer { device.remove() }
            let binary = try Demo.binary()
            let share = try device.spawn(binary, Demo.share("https://example.com/traced"), as: notes.shareExtension)
            #expect(share.succeeded, "\(share.standardError)")
            let app = try device.spawn(binary, Demo.app(), as: notes.app)
            #expect(app.succeeded, "\(app.standardError)")
            #expect(Demo.urls(Demo.received(app.outputLines)) == ["https://example.com/traced"])
        }
        // Written when the device ended.
        #expect(TraceValidator.problems(inFile: output) == [])
        let events = try TraceValidator.events(inFile: output)
        let enqueue = try #require(Self.events(events, ofProcessNamed: notes.shareExtension.name)
            .first { $0["ph"] as? String == "X" && $0["cat"] as? String == "inbox.enqueue" })
        let delivery = try #require(Self.events(events, ofProcessNamed: notes.app.name)
            .first { $0["ph"] as? String == "X" && $0["cat"] as? String == "inbox.delivery" })
        #expect((enqueue["args"] as? [String: Any])?["item"] as? String == "1")
        #expect((delivery["args"] as? [String: Any])?["item"] as? String == "1")
        #expect(enqueue["pid"] as? Int != delivery["pid"] as? Int)
        // The arrow: a start on the enqueue's track at its start, an end on the delivery's.
        let start = try #require(events.first { $0["ph"] as? String == "s" && $0["pid"] as? Int == enqueue["pid"] as? Int
            && $0["tid"] as? Int == enqueue["tid"] as? Int && $0["ts"] as? Double == enqueue["ts"] as? Double })
        let end = try #require(events.first { $0["ph"] as? String == "f" && $0["pid"] as? Int == delivery["pid"] as? Int
            && $0["tid"] as? Int == delivery["tid"] as? Int && $0["ts"] as? Double == delivery["ts"] as? Double })
        #expect("\(start["id"] ?? "")" == "\(end["id"] ?? "")")
        // One clock for every process: the delivery starts after the enqueue did.
        #expect(try #require(delivery["ts"] as? Double) > (try #require(enqueue["ts"] as? Double)))
        // Locks waited for and held, and the launcher's record of each process.
        let kinds = Set(events.compactMap { $0["cat"] as? String })
        #expect(kinds.isSuperset(of: ["lock.held", "lock.wait", "coordination.write", "process"]), "\(kinds)")
    }

    /// The X events of category `category` on the process named `name`.
    static func slices(_ events: [[String: Any]], _ category: String, ofProcessNamed name: String) -> [[String: Any]] {
        Self.events(events, ofProcessNamed: name).filter { $0["ph"] as? String == "X" && $0["cat"] as? String == category }
    }

    /// The arrow that starts at `from` and ends at `to` (the flow events bound to them), if any.
    static func arrow(_ events: [[String: Any]], from: [String: Any], to: [String: Any]) -> Bool {
        func bound(_ phase: String, _ slice: [String: Any]) -> Set<String> {
            Set(events.filter { $0["ph"] as? String == phase && $0["pid"] as? Int == slice["pid"] as? Int
                && $0["tid"] as? Int == slice["tid"] as? Int && $0["ts"] as? Double == slice["ts"] as? Double }.map { "\($0["id"] ?? "")" })
        }
        return !bound("s", from).isDisjoint(with: bound("f", to))
    }

    /// The Notes app observes its note; the share extension saves `text` into it and
    /// posts; returns how the app ended (it exits inside its observer).
    static func shareANote(_ text: String, notes: NotesExample, on device: SimulatedDevice) throws -> ProcessOutcome {
        let note = try notes.groupContainer(on: device).appendingPathComponent("note.txt").path
        let app = try device.launch(built: "SignalProbe", ["note-app", "--file", note], as: notes.app)
        try #require(app.waitForLine("ready", timeout: 60), "\(app.standardError)")
        let share = try device.spawn(built: "SignalProbe", ["note-extension", "--file", note, "--text", text, "--post-first", "no"],
                                     as: notes.shareExtension)
        #expect(share.succeeded, "\(share.standardError)")
        return app.wait(timeout: 60)
    }

    @Test("a Darwin notification's story: the extension saves and posts, the app's observer runs, an arrow joins the two tracks")
    func aDarwinNotificationsStory() throws {
        let notes = try NotesExample()
        let device = try SimulatedDevice(name: "DeviceTraceSignal", trace: .whenKept)
        defer { device.remove() }
        let end = try Self.shareANote("traced", notes: notes, on: device)
        #expect(end.succeeded && end.outputLines.contains("read traced"), "\(end.outputLines) \(end.standardError)")

        let url = try device.writeTrace(to: device.scratch.appendingPathComponent("trace.json"))
        #expect(TraceValidator.problems(inFile: url) == [])
        let events = try TraceValidator.events(inFile: url)
        let post = try #require(Self.slices(events, "signal.post", ofProcessNamed: notes.shareExtension.name)
            .first { $0["name"] as? String == "com.example.notes.didChange" })
        let delivery = try #require(Self.slices(events, "signal.delivery", ofProcessNamed: notes.app.name)
            .first { $0["name"] as? String == "com.example.notes.didChange" })
        #expect(post["pid"] as? Int != delivery["pid"] as? Int)
        #expect(Self.arrow(events, from: post, to: delivery), "no arrow from the post to the delivery")
        // The delivery saw the count the post made.
        #expect((post["args"] as? [String: Any])?["count"] as? String == (delivery["args"] as? [String: Any])?["count"] as? String)
        // The save came before the post, on the extension's track; the app's reread after the delivery.
        let save = try #require(Self.slices(events, "coordination.write", ofProcessNamed: notes.shareExtension.name).first)
        #expect(try #require(save["ts"] as? Double) < (try #require(post["ts"] as? Double)))
    }

    /// Finding guarded: the delivery's event was recorded after the observer was
    /// queued, so an observer that exits at once lost it from the trace in 0 to 2
    /// of 6 runs. The probe's app exits inside its observer.
    @Test("a target that exits inside its observer keeps the delivery in its trace, every time")
    func anObserverThatExitsKeepsItsDelivery() throws {
        let notes = try NotesExample()
        for run in 1...16 {
            let device = try SimulatedDevice(name: "DeviceTraceExit", trace: .whenKept)
            defer { device.remove() }
            let end = try Self.shareANote("run \(run)", notes: notes, on: device)
            #expect(end.succeeded, "\(end.standardError)")
            let events = try TraceValidator.events(inFile: try device.writeTrace(to: device.scratch.appendingPathComponent("trace.json")))
            let deliveries = Self.slices(events, "signal.delivery", ofProcessNamed: notes.app.name)
            #expect(deliveries.contains { $0["name"] as? String == "com.example.notes.didChange" },
                    "run \(run): no delivery on the app's track: \(deliveries)")
        }
    }

    @Test("a target suspended and resumed, and one killed with 0xdead10cc, on their own tracks with the reason")
    func lifecycleOnTheTargetsTracks() throws {
        let notes = try NotesExample()
        let device = try SimulatedDevice(name: "DeviceTraceLifecycle", trace: .whenKept)
        defer { device.remove() }
        var settings = device.lifecycleSettings
        settings.listenerGrace = 2
        device.lifecycleSettings = settings
        let group = try notes.groupContainer(on: device)
        let app = try device.launch(built: "LifecycleProbe", ["observe"], as: notes.app)
        try #require(app.waitForLine("ready", timeout: 60))
        try device.moveToBackground(app)
        #expect(try device.suspend(app) == .suspended)
        try device.resume(app)
        let share = try device.launch(built: "LifecycleProbe", ["coordinated-write", "--file", group.appendingPathComponent("draft.txt").path],
                                      as: notes.shareExtension)
        try #require(share.waitForLine("inside", timeout: 60))
        try device.moveToBackground(share)
        guard case .killed(let report) = try device.suspend(share) else {
            Issue.record("suspended inside a coordinated write and not killed")
            return
        }
        try device.terminate(app)

        let url = try device.writeTrace(to: device.scratch.appendingPathComponent("trace.json"))
        #expect(TraceValidator.problems(inFile: url) == [])
        let events = try TraceValidator.events(inFile: url)
        let requests = Self.slices(events, "lifecycle", ofProcessNamed: notes.app.name).compactMap { $0["name"] as? String }
        #expect(requests == ["background", "suspend", "resume", "terminate"], "\(requests)")
        let resumed = try #require(Self.slices(events, "lifecycle", ofProcessNamed: notes.app.name).first { $0["name"] as? String == "resume" })
        #expect((resumed["args"] as? [String: Any])?["state before"] as? String == "suspended")
        // The app's own record of the notifications it handled, on the same process's track.
        let notices = Set(Self.slices(events, "lifecycle.notice", ofProcessNamed: notes.app.name).compactMap { $0["name"] as? String })
        #expect(notices.isSuperset(of: ["UIApplicationDidEnterBackgroundNotification", "UIApplicationDidBecomeActiveNotification"]), "\(notices)")
        let ends = Self.events(events, ofProcessNamed: notes.shareExtension.name).filter { $0["cat"] as? String == "termination" }
        let killed = try #require(ends.first)
        #expect(ends.count == 1 && killed["ph"] as? String == "i", "\(ends)")
        let args = try #require(killed["args"] as? [String: Any])
        #expect(args["code"] as? String == "0xdead10cc", "\(args)")
        #expect(args["state"] as? String == "suspended")
        #expect(report.heldLocks.allSatisfy { (args["locks"] as? String ?? "").contains($0.path) } && !report.heldLocks.isEmpty, "\(args)")
        let appEnd = Self.events(events, ofProcessNamed: notes.app.name).first { $0["cat"] as? String == "termination" }
        #expect((appEnd?["args"] as? [String: Any])?["reason"] as? String == TerminationReason.terminatedBySystem.description)
    }

    @Test("the test process's own operations on the device's files join the trace; another device's do not")
    func theTestProcessJoinsTheTrace() throws {
        let notes = try NotesExample()
        let device = try SimulatedDevice(name: "DeviceTraceTests", trace: .whenKept)
        defer { device.remove() }
        let other = try SimulatedDevice(name: "DeviceTraceUntraced")
        defer { other.remove() }
        for each in [device, other] {
            try each.run(as: notes.app) { resolver in
                let defaults = try #require(SharedDefaults(suiteName: Demo.group, resolver: resolver))
                defaults.set("traced", forKey: "story")
                #expect(defaults.string(forKey: "story") == "traced")
            }
        }
        let url = try device.writeTrace(to: device.scratch.appendingPathComponent("trace.json"))
        #expect(TraceValidator.problems(inFile: url) == [])
        let events = try TraceValidator.events(inFile: url)
        let saves = events.filter { $0["cat"] as? String == "defaults.save" }
        #expect(saves.count == 1, "the untraced device's save must not appear: \(saves)")
        #expect((saves.first?["name"] as? String)?.hasPrefix(device.directory.path) == true)
        expectSimulationError(\.traceNotRecorded) { try other.writeTrace() }
    }

    @Test("a kept device's trace is written beside it")
    func aKeptDevicesTraceIsBesideIt() throws {
        let device = try SimulatedDevice(name: "DeviceTraceKept", keepPolicy: .onFailure, trace: .whenKept)
        let directory = device.directory
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try Demo.binary()
        let notes = try NotesExample()
        _ = try device.spawn(binary, Demo.share("https://example.com/kept"), as: notes.shareExtension)
        device.recordFailure("a deliberate failure, so that the device is kept with its trace")
        device.remove()
        let trace = directory.appendingPathComponent("trace.json")
        #expect(TraceValidator.problems(inFile: trace) == [])
        let events = try TraceValidator.events(inFile: trace)
        #expect(events.contains { $0["cat"] as? String == "inbox.enqueue" })
    }

    @Test("a trace that cannot be written fails nothing: the traced process succeeds and says so in one line", .tags(.hostile))
    func anUnwritableTraceFailsNothing() throws {
        let notes = try NotesExample()
        let device = try SimulatedDevice(name: "DeviceTraceUnwritable")
        defer { device.remove() }
        // A regular file where the directory should be: no file can be made in it.
        let blocker = device.scratch.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let share = try device.spawn(try Demo.binary(), Demo.share("https://example.com/unwritable"), as: notes.shareExtension,
                                     environment: ["APPGROUP_TRACE": blocker.path])
        #expect(share.succeeded, "\(share.standardError)")
        #expect(Demo.shared(share.outputLines)["https://example.com/unwritable"] == 1)
        let notes_ = share.standardError.split(separator: "\n").filter { $0.contains("could not write the trace file") }
        #expect(notes_.count == 1, "\(share.standardError)")
    }
}
