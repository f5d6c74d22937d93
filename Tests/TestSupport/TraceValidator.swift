import Foundation

/// Checks a trace file against the rules of Chrome's Trace Event Format that
/// Perfetto's UI and chrome://tracing rely on, independently of the package's own
/// writer: the object form with `traceEvents`; every event with a phase, a pid and
/// a tid; complete events (`"X"`) with a timestamp and a duration, properly nested
/// on each thread track (two slices of one track either nest or do not overlap);
/// every flow arrow (`"s"`, `"f"`) bound to a complete event of its own track that
/// encloses its timestamp, every arrow's end after a start of the same id; and a
/// `process_name` metadata event for every process that has events.
package enum TraceValidator {
    /// The problems of the trace in `data`; empty when it is valid.
    /// - Parameter complete: also require every arrow to have both its start and its
    ///   end (a merged trace; a single process's file may hold one end of an arrow
    ///   whose other end is in another process's file).
    package static func problems(in data: Data, complete: Bool = true) -> [String] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            return ["not JSON: \(error)"]
        }
        guard let document = object as? [String: Any], let events = document["traceEvents"] as? [[String: Any]] else {
            return ["not an object with a traceEvents array of objects"]
        }
        var problems: [String] = []
        struct Slice { let start: Double; let end: Double; let name: String }
        var slices: [String: [Slice]] = [:]   // by "pid/tid"
        var named: Set<Int> = []
        var busy: Set<Int> = []
        var flows: [(phase: String, key: String, track: String, ts: Double, index: Int)] = []
        let epsilon = 0.0005 // half a nanosecond, in microseconds
        for (index, event) in events.enumerated() {
            guard let phase = event["ph"] as? String else { problems.append("event \(index) has no ph"); continue }
            guard let pid = event["pid"] as? Int else { problems.append("event \(index) (\(phase)) has no integer pid"); continue }
            let tid = event["tid"] as? Int
            let track = "\(pid)/\(tid.map(String.init) ?? "?")"
            let ts = event["ts"] as? Double
            switch phase {
            case "M":
                guard let name = event["name"] as? String else { problems.append("metadata event \(index) has no name"); continue }
                let label = (event["args"] as? [String: Any])?["name"] as? String
                if name == "process_name" || name == "thread_name", (label ?? "").isEmpty {
                    problems.append("\(name) event \(index) has no args.name")
                }
                if name == "process_name" { named.insert(pid) }
            case "X":
                guard tid != nil, let ts, let duration = event["dur"] as? Double, ts >= 0, duration >= 0 else {
                    problems.append("complete event \(index) lacks tid, ts or dur (or has a negative one)"); continue
                }
                guard event["name"] is String else { problems.append("complete event \(index) has no name"); continue }
                slices[track, default: []].append(Slice(start: ts, end: ts + duration, name: event["name"] as! String))
                busy.insert(pid)
            case "i", "I":
                guard tid != nil, ts != nil else { problems.append("instant event \(index) lacks tid or ts"); continue }
                busy.insert(pid)
            case "s", "t", "f":
                guard tid != nil, let ts, let id = event["id"] else { problems.append("flow event \(index) lacks tid, ts or id"); continue }
                if phase == "f", event["bp"] as? String != "e" { problems.append("flow end \(index) is not bound to its enclosing slice (bp e)") }
                flows.append((phase, "\(event["cat"] ?? "")/\(event["name"] ?? "")/\(id)", track, ts, index))
            default:
                problems.append("event \(index) has an unexpected phase \(phase)")
            }
        }
        for pid in busy.subtracting(named).sorted() { problems.append("process \(pid) has events but no process_name") }
        for (track, list) in slices {
            var stack: [Slice] = []
            for slice in list.sorted(by: { $0.start != $1.start ? $0.start < $1.start : $0.end > $1.end }) {
                while let top = stack.last, top.end <= slice.start + epsilon { stack.removeLast() }
                if let top = stack.last, slice.end > top.end + epsilon {
                    problems.append("on track \(track), \(slice.name) [\(slice.start), \(slice.end)] overlaps \(top.name) [\(top.start), \(top.end)] without nesting")
                }
                stack.append(slice)
            }
        }
        var starts: [String: Double] = [:]
        for flow in flows {
            let enclosed = slices[flow.track]?.contains { $0.start - epsilon <= flow.ts && flow.ts <= $0.end + epsilon } ?? false
            if !enclosed { problems.append("flow event \(flow.index) (\(flow.phase)) is bound to no slice of its track \(flow.track) at \(flow.ts)") }
            if flow.phase == "s" { starts[flow.key] = min(starts[flow.key] ?? .infinity, flow.ts) }
        }
        var ended: Set<String> = []
        for flow in flows where flow.phase == "f" {
            guard let start = starts[flow.key] else {
                if complete { problems.append("flow end \(flow.index) has no start with id \(flow.key)") }
                continue
            }
            if flow.ts + epsilon < start { problems.append("flow end \(flow.index) is before its start") }
            ended.insert(flow.key)
        }
        if complete {
            for key in starts.keys where !ended.contains(key) { problems.append("flow \(key) starts but never ends") }
        }
        return problems
    }

    /// The problems of the trace file at `url`.
    package static func problems(inFile url: URL, complete: Bool = true) -> [String] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return ["\(url.path) cannot be read"] }
        return problems(in: data, complete: complete)
    }

    /// The events of a trace, for a test that reads its story.
    package static func events(inFile url: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: url)
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let events = document["traceEvents"] as? [[String: Any]] else { return [] }
        return events
    }
}
