import Foundation

/// A child's output cut into lines by its bytes: a line ends at LF, and a CR just
/// before that LF belongs to the ending. Cutting a `String` on "\n" would not cut
/// at "\r\n", which Swift counts as one `Character` that is not "\n".
enum OutputLines {
    /// The lines of `bytes` that are complete (ended by LF); what follows the last
    /// LF is still being written and is left out.
    static func complete(_ bytes: Data) -> [String] {
        var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        parts.removeLast() // the unfinished part after the last LF (empty when complete)
        return parts.map(line)
    }

    /// Every line of `text`, the unfinished last one too.
    static func all(_ text: String) -> [String] {
        Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map(line)
    }

    private static func line<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}

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

/// A caller's timeout made one every clock accepts: NaN and negative values wait
/// not at all, and anything over a year (infinity included) waits a year, which
/// is forever for a test. Unclamped, a huge value overflowed the conversion to the
/// kernel's time and trapped.
enum WaitTimeout {
    static let longest: TimeInterval = 365 * 24 * 3600

    static func clamped(_ timeout: TimeInterval) -> TimeInterval {
        timeout.isNaN ? 0 : min(max(timeout, 0), longest)
    }

    /// When a wait of `timeout` seconds starting now ends.
    static func deadline(_ timeout: TimeInterval) -> Date { Date().addingTimeInterval(clamped(timeout)) }
}
