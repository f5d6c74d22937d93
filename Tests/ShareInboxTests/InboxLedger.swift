import Foundation

/// What the inbox probes printed: the number each returned enqueue was given
/// (`ack <number> <title>`, from `inbox-enqueue` and `inbox-fill`) and each item
/// delivered (`got <number> <title>`, drains separated by `drain` lines). Exactly
/// once means: every acknowledged title delivered once, under the number its
/// writer was told, and numbers increasing within each drain.
struct InboxLedger {
    private(set) var acknowledged: [String: UInt64] = [:]
    private(set) var deliveries: [(number: UInt64, title: String)] = []
    private(set) var problems: [String] = []

    /// Notes the `ack` lines of a writer's output.
    mutating func acknowledge(_ lines: [String]) {
        for line in lines where line.hasPrefix("ack ") {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3, let number = UInt64(parts[1]) else { continue }
            if let other = acknowledged[parts[2]] { problems.append("\(parts[2]) acknowledged twice (\(other), \(number))") }
            acknowledged[parts[2]] = number
        }
    }

    /// Notes the deliveries of a drainer's output (or of a drain in this process,
    /// given as the same lines), checking the order within each drain.
    mutating func deliver(_ lines: [String], drainer: String) {
        var last: UInt64?
        for line in lines {
            // A drain starts (or a nested one, or the outer one resumes): order is per drain.
            if line == "drain" || line == "nested" { last = nil; continue }
            guard line.hasPrefix("got ") else { continue }
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3, let number = UInt64(parts[1]) else { continue }
            if let last, number <= last { problems.append("\(drainer): \(number) (\(parts[2])) came after \(last) in one drain") }
            last = number
            deliveries.append((number, parts[2]))
        }
    }

    /// Everything wrong: problems seen, acknowledged items missing, delivered twice
    /// or under another number, and deliveries nobody acknowledged (unless `unacknowledged`
    /// says which titles may arrive so: items of writers killed mid-enqueue).
    func check(allowingUnacknowledged unacknowledged: (String) -> Bool = { _ in false }) -> [String] {
        var result = problems
        var seen: [String: [UInt64]] = [:]
        for delivery in deliveries { seen[delivery.title, default: []].append(delivery.number) }
        for (title, number) in acknowledged.sorted(by: { $0.value < $1.value }) {
            let got = seen[title] ?? []
            if got.isEmpty { result.append("\(title) (#\(number)) acknowledged, never delivered") }
            if got.count > 1 { result.append("\(title) delivered \(got.count) times: \(got)") }
            if let first = got.first, first != number { result.append("\(title) acknowledged as #\(number), delivered as #\(first)") }
        }
        for (title, numbers) in seen where acknowledged[title] == nil && !unacknowledged(title) {
            result.append("\(title) delivered (\(numbers)) but never acknowledged")
        }
        return result
    }
}
