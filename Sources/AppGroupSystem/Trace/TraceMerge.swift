import Foundation

/// Merges the trace files of a device's processes into one, and summarises one.
package enum TraceMerge {
    /// A trace file that is not Chrome's JSON object form (with `traceEvents`).
    package struct Unreadable: Error, CustomStringConvertible {
        package let path: String
        package let problem: String
        package var description: String { "\(path) is not a trace file: \(problem); pass a trace written by APPGROUP_TRACE or SimulatedDevice(trace:)" }
    }

    /// The largest trace file read, in bytes: a process's file of a long test is a
    /// few megabytes; a file past this is not read at all (its parse would take
    /// about ten times its size in memory).
    package static let fileLimit: Int64 = 64 << 20

    /// The events of the trace file at `path`: a regular file of at most
    /// ``fileLimit`` bytes, opened without blocking (a FIFO is refused, not
    /// waited on) and, unless `followingLink`, not through a symbolic link.
    package static func events(ofFile path: String, followingLink: Bool = false) throws -> [[String: Any]] {
        var remaining = fileLimit
        return try events(ofFile: path, followingLink: followingLink, remaining: &remaining)
    }

    /// The largest sum of trace files one merge reads, in bytes.
    package static let mergeLimit: Int64 = 256 << 20

    /// ``events(ofFile:followingLink:)`` counted against `remaining` bytes of a
    /// merge of several files (``mergeLimit``): a file past what remains is refused.
    package static func events(ofFile path: String, followingLink: Bool = false, remaining: inout Int64) throws -> [[String: Any]] {
        let data = try contents(ofFile: path, followingLink: followingLink, remaining: remaining)
        remaining -= Int64(data.count)
        return try events(ofDocument: data, path: path)
    }

    private static func contents(ofFile path: String, followingLink: Bool, remaining: Int64) throws -> Data {
        let fd: Int32
        do {
            fd = try SystemCalls.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (followingLink ? 0 : O_NOFOLLOW))
        } catch {
            let link = error.errno == .ELOOP && !followingLink
            throw Unreadable(path: path, problem: link ? "it is a symbolic link, which a trace directory never holds" : "it cannot be opened (\(error))")
        }
        defer { SystemCalls.close(fd) }
        do {
            let st = try SystemCalls.fstat(fd, path: path)
            guard SystemCalls.isRegular(st) else {
                throw Unreadable(path: path, problem: "it is a \(SystemCalls.fileKind(st.st_mode)), not a regular file")
            }
            guard Int64(st.st_size) <= fileLimit else {
                throw Unreadable(path: path, problem: "it is \(st.st_size) bytes, past the limit of \(fileLimit) a trace file may have; trace a shorter run, or fewer processes")
            }
            guard Int64(st.st_size) <= remaining else {
                throw Unreadable(path: path, problem: "it is \(st.st_size) bytes, and with the files read before it the merge would pass its limit of \(mergeLimit) bytes; trace a shorter run, or fewer processes")
            }
            return try SystemCalls.readAll(fd, path: path, sizeHint: Int(st.st_size), limit: min(fileLimit, remaining))
        } catch let error as Unreadable {
            throw error
        } catch SystemError.fileTooLarge(_, let size, let limit) {
            throw Unreadable(path: path, problem: "it grew past \(size) bytes while read, past the limit of \(limit)")
        } catch {
            throw Unreadable(path: path, problem: "it cannot be read (\(error))")
        }
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

    /// One trace of `events` from several processes: the arrows made consistent.
    /// An arrow starts at the earliest `"s"` of its id and goes to every `"f"` at or
    /// after it: a post delivered to three observers gets three arrows, a suite
    /// version read by three processes one to each reader (the format draws one
    /// arrow per id, so each end after the first gets an id of its own and a copy
    /// of the start). Later starts of an id, and ends before any start, are dropped.
    package static func merge(_ events: [[String: Any]]) -> Data {
        var starts: [String: (ts: Double, event: [String: Any])] = [:]
        for event in events where event["ph"] as? String == "s" {
            guard let id = key(event), let ts = event["ts"] as? Double else { continue }
            if ts < starts[id]?.ts ?? .infinity { starts[id] = (ts, event) }
        }
        var ended = Set<String>()
        for event in events where event["ph"] as? String == "f" {
            guard let id = key(event), let ts = event["ts"] as? Double, let start = starts[id], ts >= start.ts else { continue }
            ended.insert(id)
        }
        var keptStart = Set<String>()
        var seenEnds: [String: Int] = [:]
        var out: [[String: Any]] = []
        for event in events {
            switch event["ph"] as? String {
            case "s":
                guard let id = key(event), ended.contains(id), event["ts"] as? Double == starts[id]?.ts, keptStart.insert(id).inserted else { continue }
            case "f":
                guard let id = key(event), let ts = event["ts"] as? Double, let start = starts[id], ts >= start.ts else { continue }
                let index = seenEnds[id, default: 0]
                seenEnds[id] = index + 1
                if index > 0 {
                    // Another end of the same start: an arrow of its own.
                    let fresh = Int(Tracing.flowID("fan-out", "\(event["id"] ?? "")", "\(index)"))
                    var copy = start.event
                    copy["id"] = fresh
                    out.append(copy)
                    var end = event
                    end["id"] = fresh
                    out.append(end)
                    continue
                }
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
