import AppGroupContainer
import Foundation

/// How many payload bytes a drain (or one read-only walk) may hash for candidate
/// records that turn out not to be records. Checking a candidate costs its claimed
/// length, up to 1 MiB, so bytes crafted as many checked headers claiming large
/// lengths could make a scan hash far more than the log holds; past the budget a
/// scan stops (see ``JournalScanner/Found/unfinished(upTo:)``) and a later one goes on.
final class JournalScanBudget {
    /// The budget of one drain: 64 MiB, a fraction of a second of hashing.
    static let perDrain: Int64 = 64 << 20

    private var remaining: Int64

    init(bytes: Int64 = JournalScanBudget.perDrain) { remaining = bytes }

    var isSpent: Bool { remaining <= 0 }

    func spend(_ bytes: Int) { remaining -= Int64(bytes) }
}

/// Finds the whole, checked records of one journal log (see ``JournalRecord``).
///
/// A record counts only when its header checks (magic, length within the limit,
/// for a current record its header checksum), it is whole within the bytes read
/// and its checksum matches its payload. Anything else is passed by searching
/// forward for the next offset where such a record starts, so a torn or foreign
/// fragment costs only its own bytes, whatever length or number it claims.
struct JournalScanner {
    let file: OpenFile
    /// How far the log is read (its size when it was measured).
    let end: Int64
    let budget: JournalScanBudget

    /// What starts at an offset of the log.
    enum Found: Equatable {
        /// A whole, checked record.
        case record(JournalRecord.Header)
        /// No record starts from the offset to `upTo`, where a whole one starts.
        case damaged(upTo: Int64)
        /// No record starts from the offset to `upTo`, and the scan budget is spent:
        /// what follows is for a later scan to judge.
        case unfinished(upTo: Int64)
        /// No whole record starts anywhere from the offset to the end: a record cut
        /// short, bytes that are no record, or (read without the sequence lock) a
        /// record being appended.
        case none
    }

    /// What starts at `offset`.
    func next(at offset: Int64) throws -> Found {
        try nextWithPayload(at: offset).found
    }

    /// How far past a header the first read goes: a typical record (about 200
    /// bytes) is then read, header and payload, with one pread.
    static let readAhead = 2048

    /// What starts at `offset` and, for a record, its checked payload (nil when it
    /// was too large to come with the header's read, and was checked in place).
    func nextWithPayload(at offset: Int64) throws -> (found: Found, payload: Data?) {
        let available = end - offset
        if available >= Int64(JournalRecord.legacyHeaderSize) {
            let first = try file.read(Int(min(Int64(JournalRecord.headerSize + Self.readAhead), available)), at: offset)
            if let header = JournalRecord.header(first), header.recordSize <= available {
                if header.recordSize <= Int64(first.count) {
                    let start = first.startIndex + header.headerSize
                    let payload = first.subdata(in: start..<start + header.length)
                    if JournalRecord.isWhole(header, payload: payload) { return (.record(header), payload) }
                    budget.spend(max(header.length, 1))
                } else if try isWhole(header, at: offset) {
                    return (.record(header), nil)
                }
            }
        }
        return (try resynchronise(after: offset), nil)
    }

    /// The header at `offset` when its framing holds and the record it describes
    /// fits in the log; nil otherwise (cheap: one read of at most 32 bytes).
    func header(at offset: Int64) throws -> JournalRecord.Header? {
        let available = end - offset
        guard available >= Int64(JournalRecord.legacyHeaderSize) else { return nil }
        let bytes = try file.read(Int(min(Int64(JournalRecord.headerSize), available)), at: offset)
        guard let header = JournalRecord.header(bytes), header.recordSize <= available else { return nil }
        return header
    }

    /// True when the payload after `header` at `offset` matches its checksum. A
    /// mismatch is charged to the budget.
    func isWhole(_ header: JournalRecord.Header, at offset: Int64) throws -> Bool {
        let payload = try file.read(header.length, at: offset + Int64(header.headerSize))
        if JournalRecord.isWhole(header, payload: payload) { return true }
        budget.spend(max(header.length, 1))
        return false
    }

    /// The first offset after `offset` where a whole, checked record starts: the
    /// log is read in chunks (constant memory), each magic's header judged alone
    /// first, its payload hashed only when that passed.
    private func resynchronise(after offset: Int64) throws -> Found {
        let chunk = 1 << 16
        var start = offset + 1
        while start < end {
            let bytes = try file.read(Int(min(Int64(chunk + 3), end - start)), at: start)
            if bytes.count < 4 { break }
            var index = bytes.startIndex
            while index + 4 <= bytes.endIndex {
                // "AGJ1" or "AGJ2".
                if bytes[index] == 0x41, bytes[index + 1] == 0x47, bytes[index + 2] == 0x4A, bytes[index + 3] == 0x31 || bytes[index + 3] == 0x32 {
                    let candidate = start + Int64(index - bytes.startIndex)
                    if let header = try header(at: candidate) {
                        if budget.isSpent { return .unfinished(upTo: candidate) }
                        if try isWhole(header, at: candidate) { return .damaged(upTo: candidate) }
                    }
                }
                index += 1
            }
            start += Int64(chunk)
        }
        return .none
    }
}
