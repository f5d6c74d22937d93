import Foundation

/// Chrome's Trace Event Format, written by hand (one pass, no Foundation
/// encoder): complete events (`"ph": "X"`), instants (`"i"`), flow arrows (`"s"`
/// and `"f"` bound to the enclosing slice, `"bp": "e"`), and the metadata that
/// names process and thread tracks (`"M"`). Timestamps are microseconds of
/// CLOCK_MONOTONIC with nanosecond decimals.
package enum TraceJSON {
    /// A whole trace file holding `events` (JSON texts of single events).
    package static func document(_ events: [String]) -> Data {
        var text = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
        text += events.joined(separator: ",\n")
        text += "\n]}\n"
        return Data(text.utf8)
    }

    /// The JSON texts of one process's events: its name, its threads' names, its
    /// events laid out in lanes so that complete events nest on every track.
    ///
    /// Events on one thread nest by construction, except those an async task began
    /// on one thread and ended after hopping: an event that would overlap another
    /// without nesting goes to an extra lane of its thread ("<thread> (2)"), so
    /// every track holds properly nested slices, as the format requires.
    package static func process(_ events: [TraceEvent], pid: Int32, name: String) -> [String] {
        var out = ["{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\(pid),\"tid\":\(pid),\"args\":{\"name\":\(quote(name))}}"]
        // Events this process recorded on another's track (the device's record of
        // a target's lifecycle) go to one track of that process, "seen by <name>".
        var byThread: [Track: [TraceEvent]] = [:]
        var others: [Int32: String] = [:]
        for event in events {
            if let track = event.track {
                others[track.pid] = track.name
                byThread[Track(pid: track.pid, thread: Int(track.pid) + seenTrackOffset), default: []].append(event)
            } else {
                byThread[Track(pid: pid, thread: Int(event.thread)), default: []].append(event)
            }
        }
        for (other, otherName) in others.sorted(by: { $0.key < $1.key }) where other != pid {
            out.append("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\(other),\"tid\":\(other),\"args\":{\"name\":\(quote(otherName))}}")
        }
        for key in byThread.keys.sorted(by: { ($0.pid, $0.thread) < ($1.pid, $1.thread) }) {
            let sorted = byThread[key]!.sorted { $0.start != $1.start ? $0.start < $1.start : $0.end > $1.end }
            var lanes: [[UInt64]] = [[]]
            var used: Set<Int> = [0]
            for event in sorted {
                var lane = 0
                if !event.isInstant {
                    while true {
                        if lane == lanes.count { lanes.append([]) }
                        while let top = lanes[lane].last, top <= event.start { lanes[lane].removeLast() }
                        if let top = lanes[lane].last, top < event.end { lane += 1; continue }
                        lanes[lane].append(event.end)
                        break
                    }
                }
                used.insert(lane)
                out += self.event(event, pid: key.pid, tid: laneID(key.thread, lane))
            }
            let threadName = key.thread >= seenTrackOffset ? "seen by \(name)" : self.threadName(Int32(key.thread), pid: pid)
            for lane in used.sorted() {
                let label = lane == 0 ? threadName : "\(threadName) (\(lane + 1))"
                out.append("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\(key.pid),\"tid\":\(laneID(key.thread, lane)),\"args\":{\"name\":\(quote(label))}}")
            }
        }
        return out
    }

    /// A thread track of a process in the file.
    private struct Track: Hashable {
        let pid: Int32
        let thread: Int
    }

    /// The thread id of the track another process's events go on: above every
    /// kernel thread id (at most 2^22) and its lanes.
    private static let seenTrackOffset = 1_000_000_000

    private static func laneID(_ thread: Int, _ lane: Int) -> Int { thread + lane * 10_000_000 }

    private static func event(_ event: TraceEvent, pid: Int32, tid: Int) -> [String] {
        let ts = micro(event.start)
        var args = ""
        for (index, (key, value)) in event.args.enumerated() {
            args += (index == 0 ? "" : ",") + quote(key) + ":" + quote(value)
        }
        let common = "\"pid\":\(pid),\"tid\":\(tid),\"ts\":\(ts)"
        if event.isInstant {
            return ["{\"name\":\(quote(event.name)),\"cat\":\(quote(event.kind.rawValue)),\"ph\":\"i\",\"s\":\"t\",\(common),\"args\":{\(args)}}"]
        }
        var out = ["{\"name\":\(quote(event.name)),\"cat\":\(quote(event.kind.rawValue)),\"ph\":\"X\",\(common),\"dur\":\(micro(event.end - event.start)),\"args\":{\(args)}}"]
        if let id = event.flowOut {
            out.append("{\"name\":\"causes\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":\(id),\(common)}")
        }
        if let id = event.flowIn {
            out.append("{\"name\":\"causes\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":\(id),\(common)}")
        }
        return out
    }

    /// Nanoseconds as microseconds with three decimals.
    static func micro(_ nanoseconds: UInt64) -> String {
        let fraction = nanoseconds % 1000
        return "\(nanoseconds / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }

    /// The kernel's name of a thread of this process ("main" for the main thread).
    private static func threadName(_ thread: Int32, pid: Int32) -> String {
        if thread == pid { return "main" }
        if let data = FileManager.default.contents(atPath: "/proc/self/task/\(thread)/comm"),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            return "\(text) \(thread)"
        }
        return "thread \(thread)"
    }

    /// `text` as a JSON string.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
