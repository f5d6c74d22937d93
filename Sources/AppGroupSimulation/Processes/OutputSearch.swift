import Foundation

/// A wait's search of a stream that keeps growing: each call looks only at what
/// arrived since the previous one, so a wait behind megabytes of output costs
/// their length once, not once per chunk read. Used under the process's lock.
final class OutputSearch {
    private enum Target {
        case line((String) -> Bool)
        case text(Data)
    }

    private let target: Target
    /// Bytes already searched (for lines: up to the end of the last complete line seen).
    private var searched = 0
    private var found: String?

    /// The first complete line for which `predicate` is true.
    init(line predicate: @escaping (String) -> Bool) { target = .line(predicate) }

    /// `text` anywhere, across chunk boundaries (found: `text` itself).
    init(text: String) { target = .text(Data(text.utf8)) }

    /// What was found in `bytes` (the whole stream so far), or nil.
    func next(in bytes: Data) -> String? {
        if let found { return found }
        let start = bytes.startIndex
        switch target {
        case .line(let predicate):
            guard let lastEnd = bytes[(start + searched)...].lastIndex(of: 0x0A) else { return nil }
            let fresh = bytes[(start + searched)...lastEnd]
            searched = lastEnd + 1 - start
            found = OutputLines.complete(Data(fresh)).first(where: predicate)
        case .text(let needle):
            // Back by the needle's length less one: it may straddle the previous end.
            let from = start + max(0, searched - max(needle.count - 1, 0))
            searched = bytes.count
            if bytes[from...].range(of: needle) != nil { found = String(decoding: needle, as: UTF8.self) }
        }
        return found
    }
}
