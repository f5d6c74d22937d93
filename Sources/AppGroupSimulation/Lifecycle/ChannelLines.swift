/// Splits what a target writes on its lifecycle channel into lines, in time
/// linear in the bytes read and in memory bounded by ``limit``: each byte is
/// searched for the newline once, and a line longer than the limit is dropped
/// as it arrives (reported once, with its length) instead of being kept.
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
        /// A line longer than the limit, dropped; its length in bytes.
        case oversized(bytes: Int)
    }

    private let limit: Int
    private var partial: [UInt8] = []
    /// The length of the oversized line being dropped, nil when none is.
    private var dropping: Int?

    init(limit: Int = ChannelLines.limit) { self.limit = limit }

    /// Takes the next bytes read and hands `body` every piece they complete, in order.
    mutating func append(_ chunk: some Collection<UInt8>, _ body: (Piece) -> Void) {
        var rest = chunk[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? rest.endIndex)]
            if let dropped = dropping {
                dropping = dropped + piece.count
            } else if partial.count + piece.count > limit {
                dropping = partial.count + piece.count
                partial = []
            } else {
                partial.append(contentsOf: piece)
            }
            guard let newline else { return }
            if let dropped = dropping {
                body(.oversized(bytes: dropped))
                dropping = nil
            } else {
                body(.line(String(decoding: partial, as: UTF8.self)))
                partial.removeAll(keepingCapacity: partial.capacity <= 4096)
            }
            rest = rest[rest.index(after: newline)...]
        }
    }
}
