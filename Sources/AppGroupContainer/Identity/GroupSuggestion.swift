/// "Did you mean": a group asked for that is one or two edits away from a group
/// the target holds is most likely a typo of it (`group.ai.systenics.note`, a
/// dropped letter; `grpup.`, a swapped one), which iOS answers with a quiet nil.
enum GroupSuggestion {
    /// The sentence to add to a refusal of `group`: the held groups within two
    /// edits (insert, delete, substitute, or swap two neighbours), nearest first;
    /// empty when none is.
    static func didYouMean(_ group: String, among held: [String]) -> String {
        let near = held.compactMap { candidate -> (String, Int)? in
            let distance = editDistance(Array(group.unicodeScalars), Array(candidate.unicodeScalars), limit: 2)
            return distance.map { (candidate, $0) }
        }.sorted { $0.1 < $1.1 }
        guard let best = near.first else { return "" }
        let edits = best.1 == 1 ? "one edit" : "two edits"
        return " Did you mean \(best.0)? It is \(edits) away from \(group), and the target holds it."
    }

    /// The optimal-string-alignment distance of `a` and `b` when it is at most
    /// `limit`, else nil (a band of the table is enough: long identifiers cost little).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
        if a == b { return nil } // the same group is no typo
        if abs(a.count - b.count) > limit { return nil }
        let big = limit + 1
        var previous2 = [Int](repeating: big, count: b.count + 1)
        var previous = Array(0...b.count).map { min($0, big) }
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [Int](repeating: big, count: b.count + 1)
            current[0] = min(i, big)
            var rowMinimum = current[0]
            for j in Swift.max(1, i - limit)...Swift.min(b.count, i + limit) where !b.isEmpty {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = Swift.min(value, previous2[j - 2] + 1) }
                current[j] = Swift.min(value, big)
                rowMinimum = Swift.min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return nil }
            previous2 = previous
            previous = current
        }
        let distance = previous[b.count]
        return distance <= limit ? distance : nil
    }
}
