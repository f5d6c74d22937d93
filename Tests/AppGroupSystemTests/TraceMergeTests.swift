import Foundation
import Testing
import AppGroupSystem
import TestSupport

/// The trace's merge and writer on events made here: a post heard by
/// two observers gets two arrows; events recorded about another process land on
/// that process's track, named.
@Suite struct TraceMergeTests {
    /// One process's file, as its events would be written.
    static func file(_ events: [TraceEvent], pid: Int32, name: String) throws -> [[String: Any]] {
        try TraceMerge.events(ofDocument: TraceJSON.document(TraceJSON.process(events, pid: pid, name: name)))
    }

    static func slice(_ kind: Tracing.Kind, at start: UInt64, thread: Int32, flowOut: UInt64? = nil, flowIn: UInt64? = nil,
                      track: Tracing.Track? = nil) -> TraceEvent {
        TraceEvent(kind: kind, name: kind.rawValue, start: start, end: start + 1_000, thread: thread, args: [],
                   flowOut: flowOut, flowIn: flowIn, track: track)
    }

    @Test("a post delivered in two processes: an arrow to each delivery, each with its own id, both from the post")
    func aPostHeardTwiceGetsTwoArrows() throws {
        let flow = Tracing.flowID("signal", "/table", "7", "1")
        var events = try Self.file([Self.slice(.signalPost, at: 10_000, thread: 101, flowOut: flow)], pid: 101, name: "poster")
        events += try Self.file([Self.slice(.signalDelivery, at: 20_000, thread: 202, flowIn: flow)], pid: 202, name: "first")
        events += try Self.file([Self.slice(.signalDelivery, at: 30_000, thread: 303, flowIn: flow),
                                 // Before the post: bound to no start, dropped.
                                 Self.slice(.signalDelivery, at: 1_000, thread: 303, flowIn: flow)], pid: 303, name: "second")
        let merged = TraceMerge.merge(events)
        #expect(TraceValidator.problems(in: merged) == [])
        let out = try TraceMerge.events(ofDocument: merged)
        let starts = out.filter { $0["ph"] as? String == "s" }
        let ends = out.filter { $0["ph"] as? String == "f" }
        #expect(starts.count == 2 && ends.count == 2, "\(starts) \(ends)")
        #expect(Set(starts.map { "\($0["id"] ?? "")" }) == Set(ends.map { "\($0["id"] ?? "")" }))
        #expect(Set(starts.map { "\($0["id"] ?? "")" }).count == 2)
        #expect(starts.allSatisfy { $0["pid"] as? Int == 101 })
        #expect(Set(ends.compactMap { $0["pid"] as? Int }) == [202, 303])
    }

    @Test("an event recorded about another process goes on that process's track, which is named")
    func anEventOnAnotherProcesssTrack() throws {
        let target = Tracing.Track(pid: 404, name: "NotesShare")
        let events = try Self.file([Self.slice(.lifecycle, at: 10_000, thread: 101, track: target),
                                    Self.slice(.lifecycle, at: 10_500, thread: 102, track: target), // overlaps: another lane
                                    Self.slice(.process, at: 9_000, thread: 101)], pid: 101, name: "test process")
        #expect(TraceValidator.problems(in: TraceMerge.merge(events)) == [])
        let lifecycle = events.filter { $0["cat"] as? String == "lifecycle" }
        #expect(lifecycle.count == 2 && lifecycle.allSatisfy { $0["pid"] as? Int == 404 })
        #expect(Set(lifecycle.compactMap { $0["tid"] as? Int }).count == 2, "overlapping slices of one track take two lanes")
        #expect(events.contains { $0["name"] as? String == "process_name" && $0["pid"] as? Int == 404
            && ($0["args"] as? [String: Any])?["name"] as? String == "NotesShare" })
        #expect(events.contains { $0["name"] as? String == "thread_name" && $0["pid"] as? Int == 404
            && ($0["args"] as? [String: Any])?["name"] as? String == "seen by test process" })
        #expect(events.first { $0["cat"] as? String == "process" }?["pid"] as? Int == 101)
    }
}
