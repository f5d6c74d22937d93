import Foundation

/// Merges the trace files of a device's processes into one, and summarises one.
package enum TraceMerge {
    /// A trace file that is not Chrome's JSON object form (with `traceEvents`).
    package struct Unreadable: Error, CustomStringConvertible {
        package let path: String
        package let problem: String
        package var description: String { "\(path) is not a trace file: \(problem); pass a trace written by APPGROUP_TRACE or SimulatedDevice(trace:)" }
    }

    /// The events of the trace file at `path`.
    package static func events(ofFile path: String) throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(path: path, problem: "it cannot be read")
        }
        return try events(ofDocument: data, path: path)
    }

    /// The events of a trace file's contents.
    package static func events(ofDocument data: Data, path: String = "(trace)") throws -> [[String: Any]] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Unreadable(path: path, problem: "it is not JSON (\(error.localizedDescription))")
        }
        if let document = object as? [String: Any], let events = document["traceEvents"] as? [[String: Any]] { return events }
        if let events = object as? [[String: Any]] { return events } // the format's bare array form
        throw Unreadable(path: path, problem: "it has no traceEvents array")
    }

    /// One trace of `events` from several processes: the arrows made consistent
    /// (an arrow's start is the earliest `"s"` of its id, its end the first `"f"` at
    /// or after it; the others, and ends without a start, are dropped: a suite
    /// version read by three processes gets one arrow, to the first reader).
    package static func merge(_ events: [[String: Any]]) -> Data {
        var starts: [String: Double] = [:]
        for event in events where event["ph"] as? String == "s" {
            guard let id = key(event), let ts = event["ts"] as? Double else { continue }
            starts[id] = min(starts[id] ?? .infinity, ts)
        }
        var ends: [String: Double] = [:]
        for event in events where event["ph"] as? String == "f" {
            guard let id = key(event), let ts = event["ts"] as? Double, let start = starts[id], ts >= start else { continue }
            ends[id] = min(ends[id] ?? .infinity, ts)
        }
        var keptStart = Set<String>()
        var keptEnd = Set<String>()
        var out: [[String: Any]] = []
        for event in events {
            switch event["ph"] as? String {
            case "s":
                guard let id = key(event), ends[id] != nil, event["ts"] as? Double == starts[id], keptStart.insert(id).inserted else { continue }
            case "f":
                guard let id = key(event), event["ts"] as? Double == ends[id], keptEnd.insert(id).inserted else { continue }
            default:
                break
            }
            out.append(event)
        }
        let document: [String: Any] = ["displayTimeUnit": "ns", "traceEvents": out]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data()
    }

    private static func key(_ event: [String: Any]) -> String? {
        guard let id = event["id"] else { return nil }
        return "\(event["cat"] ?? "")/\(event["name"] ?? "")/\(id)"
    }

    /// A few lines about a trace: its processes, and its events by category.
    package static func summary(_ events: [[String: Any]]) -> String {
        var names: [Int: String] = [:]
        var counts: [Int: [String: Int]] = [:]
        var flows = 0
        var first = Double.infinity, last = -Double.infinity
        for event in events {
            let pid = (event["pid"] as? Int) ?? 0
            switch event["ph"] as? String {
            case "M":
                if event["name"] as? String == "process_name", let name = (event["args"] as? [String: Any])?["name"] as? String { names[pid] = name }
            case "X", "i":
                counts[pid, default: [:]][(event["cat"] as? String) ?? "?", default: 0] += 1
                if let ts = event["ts"] as? Double {
                    first = min(first, ts)
                    last = max(last, ts + ((event["dur"] as? Double) ?? 0))
                }
            case "s":
                flows += 1
            default:
                break
            }
        }
        var lines: [String] = []
        let span = first <= last ? String(format: "%.3f ms", (last - first) / 1000) : "no events"
        lines.append("\(names.count) processes, \(counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }) events, \(flows) arrows, \(span)")
        for pid in Set(names.keys).union(counts.keys).sorted() {
            let byKind = (counts[pid] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("  \(names[pid] ?? "process") (pid \(pid)): \(byKind.isEmpty ? "no events" : byKind)")
        }
        return lines.joined(separator: "\n")
    }
}
