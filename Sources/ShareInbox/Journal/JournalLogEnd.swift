import AppGroupContainer
import Foundation

/// Where a log's records end. A durable writer's log is written ahead with zeros
/// (``JournalWriter``), so its size says nothing of its records: they end at the
/// first record boundary followed by ``zeroRun`` zero bytes (or by zeros to the
/// end of the file), or at the end of the file. No record holds such a run (a
/// header starts with its magic and holds a few zero bytes at most; a payload is
/// JSON), so a walk misled by a foreign header into a record's middle never takes
/// it for the end. Found by
/// following the records' headers from a boundary already known (the cursor, or
/// where the last look stopped), a few reads however long the log.
///
/// Read under the inbox's sequence lock, every record before that end is whole:
/// a writer appends under that lock, in one write. Bytes at a boundary that are
/// neither a record's header nor zeros (damage, a foreign write) end the walk;
/// the end is then put after the file's last byte that is not zero, so the
/// damage and whatever follows it are judged as in a log without a zero tail
/// (passed to the next whole record, or set aside when the writer is gone).
enum JournalLogEnd {
    /// What a walk found.
    struct Found: Equatable {
        /// The last record boundary the walk reached: where the next look starts.
        let boundary: Int64
        /// Where the records end (at least `boundary`).
        let end: Int64
    }

    /// How many zero bytes at a record boundary make the zero tail: a header's size.
    static let zeroRun = JournalRecord.headerSize

    /// The end of the records from `start` (a record boundary), in a file of
    /// `size` bytes.
    static func find(in file: OpenFile, from start: Int64, size: Int64) throws -> Found {
        var position = start
        var buffer = Data()
        var bufferStart = start
        // Small first (a live log gains a few records between two looks), larger after.
        var chunk = 4096
        while position < size {
            let bufferEnd = bufferStart + Int64(buffer.count)
            if position + Int64(JournalRecord.headerSize) > bufferEnd && bufferEnd < size || position >= bufferEnd {
                buffer = try file.read(Int(min(Int64(chunk), size - position)), at: position)
                bufferStart = position
                chunk = 1 << 16
                if buffer.isEmpty { break } // shorter than it was: its end is here
            }
            let at = buffer.startIndex + Int(position - bufferStart)
            let run = buffer[at..<min(buffer.endIndex, at + zeroRun)]
            // A full run, or zeros up to the end of the file.
            if run.count == zeroRun || position + Int64(run.count) == size,
               run.withUnsafeBytes({ bytes in bytes.allSatisfy { $0 == 0 } }) {
                return Found(boundary: position, end: position)
            }
            if let header = JournalRecord.header(buffer[at...]), header.recordSize <= size - position {
                position += header.recordSize
                continue
            }
            return Found(boundary: position, end: try endOfData(in: file, from: position, size: size))
        }
        return Found(boundary: min(position, size), end: min(position, size))
    }

    /// One past the last byte of `from..<size` that is not zero (`from` when
    /// they all are).
    static func endOfData(in file: OpenFile, from: Int64, size: Int64) throws -> Int64 {
        var last = from
        var offset = from
        while offset < size {
            let bytes = try file.read(Int(min(size - offset, 1 << 16)), at: offset)
            if bytes.isEmpty { break }
            // Over the bytes in place: Data's iterator is many times slower.
            if let index = bytes.withUnsafeBytes({ $0.lastIndex { $0 != 0 } }) { last = offset + Int64(index) + 1 }
            offset += Int64(bytes.count)
        }
        return last
    }

    /// The first byte of `from..<size` that is not zero; nil when they all are.
    static func firstData(in file: OpenFile, from: Int64, size: Int64) throws -> Int64? {
        var offset = from
        while offset < size {
            let bytes = try file.read(Int(min(size - offset, 1 << 16)), at: offset)
            if bytes.isEmpty { break }
            if let index = bytes.withUnsafeBytes({ $0.firstIndex { $0 != 0 } }) { return offset + Int64(index) }
            offset += Int64(bytes.count)
        }
        return nil
    }
}
