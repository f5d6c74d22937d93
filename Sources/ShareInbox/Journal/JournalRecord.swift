import Foundation

/// One record of a journal log (`Journal/<pid>-<hex>.log`), all little-endian:
///
///     magic            4 bytes  "AGJ2"
///     length           UInt32   payload bytes (at most ItemRecord.readLimit)
///     number           UInt64   the item's sequence number
///     checksum         UInt64   FNV-1a (64-bit) over length, number and payload
///     header checksum  UInt64   FNV-1a (64-bit) over the 24 bytes before it
///     payload          length bytes: the item's record (the JSON of ItemRecord)
///
/// A record is appended with one write(2), under the inbox's sequence lock, so a
/// reader that looks under that lock never meets a record being written by a
/// writer. The header checksum lets a reader judge a header alone: a length or a
/// number is believed only once it passed, so bytes that merely look like a
/// header (a torn write, another process's append) are never followed, and a
/// reader that lost the framing finds the next record by searching for a magic
/// whose header checks. A record counts only once its checksum passed too.
///
/// The previous release wrote `AGJ1` records: the same without the header
/// checksum (a 24-byte header). They are still read, their length believed only
/// as far as the log goes and the record only once its checksum passed.
enum JournalRecord {
    static let magic: [UInt8] = Array("AGJ2".utf8)
    static let headerSize = 32
    /// The previous release's framing.
    static let legacyMagic: [UInt8] = Array("AGJ1".utf8)
    static let legacyHeaderSize = 24

    /// The header of a record: what a reader needs before the payload.
    struct Header: Equatable {
        let length: Int
        let number: UInt64
        let checksum: UInt64
        /// 32 for a current record, 24 for one of the previous release.
        let headerSize: Int
        var recordSize: Int64 { Int64(headerSize + length) }
    }

    /// The bytes of one record.
    static func encode(number: UInt64, payload: Data) -> Data {
        // The header in a fixed buffer, then one copy of the payload: Data's appends
        // of small integers cost more than the enqueue's hashing.
        var header = [UInt8](repeating: 0, count: headerSize)
        let length = UInt32(payload.count)
        let sum = checksum(length: length, number: number, payload: payload)
        header.withUnsafeMutableBytes { raw in
            raw.copyBytes(from: magic)
            raw.storeBytes(of: length.littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: number.littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: sum.littleEndian, toByteOffset: 16, as: UInt64.self)
            let hash = headerChecksum(UnsafeRawBufferPointer(rebasing: raw[0..<24]))
            raw.storeBytes(of: hash.littleEndian, toByteOffset: 24, as: UInt64.self)
        }
        var data = Data(capacity: headerSize + payload.count)
        data.append(contentsOf: header)
        data.append(payload)
        return data
    }

    /// The header at the start of `bytes` when its framing holds: a magic, a length
    /// within the limit and, for a current record, its header checksum right. Nil
    /// otherwise. It says nothing of the payload (see ``isWhole(_:payload:)``).
    static func header(_ bytes: Data) -> Header? {
        guard bytes.count >= legacyHeaderSize else { return nil }
        // Over the bytes in place: through Data's subscripts the header checks were
        // a large share of a drain's work.
        return bytes.withUnsafeBytes { raw -> Header? in
            guard raw[0] == magic[0], raw[1] == magic[1], raw[2] == magic[2] else { return nil }
            let current: Bool
            if raw[3] == magic[3] {
                guard raw.count >= headerSize,
                      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) == headerChecksum(UnsafeRawBufferPointer(rebasing: raw[0..<24])) else {
                    return nil
                }
                current = true
            } else if raw[3] == legacyMagic[3] {
                current = false
            } else {
                return nil
            }
            let length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            guard Int64(length) <= ItemRecord.readLimit else { return nil }
            return Header(length: Int(length), number: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                          checksum: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                          headerSize: current ? headerSize : legacyHeaderSize)
        }
    }

    /// True when `payload` is the whole payload `header` describes.
    static func isWhole(_ header: Header, payload: Data) -> Bool {
        payload.count == header.length
            && checksum(length: UInt32(header.length), number: header.number, payload: payload) == header.checksum
    }

    /// FNV-1a, 64-bit, over the length and number (little-endian) then the payload.
    static func checksum(length: UInt32, number: UInt64, payload: Data) -> UInt64 {
        var hash: UInt64 = fnvOffset
        @inline(__always) func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* fnvPrime }
        for shift in stride(from: 0, to: 32, by: 8) { mix(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        // Over the bytes in place: Data's iterator cost ten times the mixing.
        payload.withUnsafeBytes { bytes in for byte in bytes { mix(byte) } }
        return hash
    }

    /// FNV-1a, 64-bit, over the 24 bytes of `bytes` from `start` (magic, length,
    /// number, checksum).
    static func headerChecksum(_ bytes: Data, from start: Data.Index) -> UInt64 {
        bytes[start..<start + 24].withUnsafeBytes { headerChecksum($0) }
    }

    /// FNV-1a, 64-bit, over `bytes` (a header's first 24).
    static func headerChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = fnvOffset
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* fnvPrime }
        return hash
    }

    private static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

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
