/// Splits what a target writes on a channel of the device into lines, in time
/// linear in the bytes read and in memory bounded by ``limit``: each byte is
/// searched for the newline once, and a line longer than the limit is dropped
/// as it arrives (reported once, when it passes the limit) instead of being kept.
///
/// The target is not trusted: a stream with no newline at all, or lines of any
/// length, cost the test process no more than reading them.
struct ChannelLines {
    /// The longest line the device takes from a target, in bytes (without the newline).
    static let limit = 1 << 20

    /// One piece of the stream.
    enum Piece: Equatable {
        /// A complete line, without its newline.
        case line(String)
        /// A line longer than the limit, reported when it passed it (`bytes` read
        /// of it then) and dropped to its newline.
        case oversized(bytes: Int)
    }

    private let limit: Int
    private var partial: [UInt8] = []
    /// True while a line past the limit is being dropped, up to its newline.
    private var dropping = false

    init(limit: Int = ChannelLines.limit) { self.limit = limit }

    /// Takes the next bytes read and hands `body` every piece they complete, in order.
    mutating func append(_ chunk: some Collection<UInt8>, _ body: (Piece) -> Void) {
        var rest = chunk[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? rest.endIndex)]
            if dropping {
                // Still the dropped line: nothing kept.
            } else if partial.count + piece.count > limit {
                dropping = true
                body(.oversized(bytes: partial.count + piece.count))
                partial = []
            } else {
                partial.append(contentsOf: piece)
            }
            guard let newline else { return }
            if dropping {
                dropping = false
            } else {
                body(.line(String(decoding: partial, as: UTF8.self)))
                partial.removeAll(keepingCapacity: partial.capacity <= 4096)
            }
            rest = rest[rest.index(after: newline)...]
        }
    }
}
