import Foundation

/// This package's property-list codec: reads binary and XML property lists and
/// writes either, keeping every value and every key exactly (see
/// ``PropertyListTree``). Foundation's readers merge keys that differ only in
/// Unicode normalization (on Linux even `NSDictionary` does), which would lose
/// one of two keys a peer wrote; this codec never does.
package enum PropertyListCodec {
    /// The formats this codec writes.
    package enum Format: Sendable {
        case binary
        case xml
    }

    /// "bplist", made once: an array built per read showed in a re-read's profile.
    private static let binaryMagic: [UInt8] = Array("bplist".utf8)

    /// The value `data` holds, binary or XML.
    /// - Throws: ``PropertyListError`` saying what is wrong (and where).
    package static func read(_ data: Data) throws -> PropertyListTree {
        if data.isEmpty { throw PropertyListError("the file is empty") }
        if data.starts(with: binaryMagic) { return try BinaryPropertyListReader.read(data) }
        // Leading whitespace or a byte-order mark may precede the XML.
        let head = data.prefix(64).drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        if head.first == UInt8(ascii: "<") || data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
            return try XMLPropertyListReader.read(data)
        }
        throw PropertyListError("not a property list of \(data.count) bytes (neither binary nor XML; the old OpenStep text format is not read, convert it with plutil -convert xml1)")
    }

    /// The bytes of `tree` in `format`.
    /// - Throws: ``PropertyListError`` when the format cannot hold the value.
    package static func write(_ tree: PropertyListTree, format: Format) throws -> Data {
        switch format {
        case .binary: return try BinaryPropertyListWriter.write(tree)
        case .xml: return try XMLPropertyListWriter.write(tree)
        }
    }
}
