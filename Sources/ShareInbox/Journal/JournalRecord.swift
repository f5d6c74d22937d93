import Foundation

/// One record of a journal log (`Journal/<pid>-<hex>.log`), all little-endian:
///
///     magic     4 bytes  "AGJ1"
///     length    UInt32   payload bytes (at most ItemRecord.readLimit)
///     number    UInt64   the item's sequence number
///     checksum  UInt64   FNV-1a (64-bit) over length, number and payload, as stored
///     payload   length bytes: the item's record (the JSON of ItemRecord)
///
/// A record is appended with one write(2), under the inbox's sequence lock, so a
/// reader that looks under that lock never meets a record being written; the
/// checksum catches a record torn by a crash or changed by hand.
enum JournalRecord {
    static let magic: [UInt8] = Array("AGJ1".utf8)
    static let headerSize = 24

    /// The header of a record: what a reader needs before the payload.
    struct Header: Equatable {
        let length: Int
        let number: UInt64
        let checksum: UInt64
        var recordSize: Int64 { Int64(JournalRecord.headerSize + length) }
    }

    /// Why the bytes at an offset are not a record.
    enum Damage: Error, Equatable, CustomStringConvertible {
        /// Fewer bytes than the header or the length says: a record cut short.
        case incomplete(available: Int64)
        /// The framing is lost: a bad magic, or a length over the limit.
        case badMagic
        case tooLong(UInt32)

        var description: String {
            switch self {
            case .incomplete(let available): return "a record cut short (\(available) bytes where a whole record belongs)"
            case .badMagic: return "bytes that do not start a record (no AGJ1 magic)"
            case .tooLong(let length): return "a record length of \(length) bytes, more than the \(ItemRecord.readLimit) an item record may have"
            }
        }
    }

    /// The bytes of one record.
    static func encode(number: UInt64, payload: Data) -> Data {
        var data = Data(capacity: headerSize + payload.count)
        data.append(contentsOf: magic)
        append(UInt32(payload.count), to: &data)
        append(number, to: &data)
        append(checksum(length: UInt32(payload.count), number: number, payload: payload), to: &data)
        data.append(payload)
        return data
    }

    /// Parses a header from `bytes` (the first ``headerSize`` of them), given how
    /// many bytes the log holds from there on.
    static func header(_ bytes: Data, available: Int64) -> Result<Header, Damage> {
        guard bytes.count >= headerSize, available >= Int64(headerSize) else { return .failure(.incomplete(available: available)) }
        let start = bytes.startIndex
        guard bytes[start..<start + 4].elementsEqual(magic) else { return .failure(.badMagic) }
        let length = UInt32(littleEndianBytes: bytes, at: start + 4)
        guard Int64(length) <= ItemRecord.readLimit else { return .failure(.tooLong(length)) }
        let header = Header(length: Int(length), number: UInt64(littleEndianBytes: bytes, at: start + 8),
                            checksum: UInt64(littleEndianBytes: bytes, at: start + 16))
        guard available >= header.recordSize else { return .failure(.incomplete(available: available)) }
        return .success(header)
    }

    /// FNV-1a, 64-bit, over the length and number (little-endian) then the payload.
    static func checksum(length: UInt32, number: UInt64, payload: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        for shift in stride(from: 0, to: 32, by: 8) { mix(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        // Over the bytes in place: Data's iterator cost ten times the mixing.
        payload.withUnsafeBytes { bytes in for byte in bytes { mix(byte) } }
        return hash
    }

    static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}

extension FixedWidthInteger {
    /// The little-endian value stored at `offset` in `bytes` (which must hold it).
    init(littleEndianBytes bytes: Data, at offset: Data.Index) {
        var value: Self = 0
        for index in 0..<(Self.bitWidth / 8) {
            value |= Self(truncatingIfNeeded: bytes[offset + index]) << (index * 8)
        }
        self = value
    }
}
