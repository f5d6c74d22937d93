import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import SharedDefaults
import Testing
import TestSupport

/// Issue 28: a traced device's timeline, with real processes. Every trace these
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
