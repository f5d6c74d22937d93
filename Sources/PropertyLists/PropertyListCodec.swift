import Foundation

/// This package's property-list codec: reads binary and XML property lists and
/// writes either, keeping every value and every key exactly (see
/// ``PropertyListTree``). Foundation's readers merge keys that differ only in
/// Unicode normalization (on Linux even `NSDictionary` does), which would lose
/// one of two keys a peer wrote; this codec never does.
///
/// The PropertyLists module is the package's implementation of Apple's formats,
/// with nothing of containers in it: SharedDefaults (suites), SharedKeychain (the
/// keychain and device files), AppGroupContainer (entitlements) and the appgroup
/// tool read and write every file through it. Its API is `package`, not public, on
/// purpose: users read and write property lists through `UserDefaults` and
/// `PropertyListSerialization`, so a public codec would be an API to keep stable
/// that no user needs.
///
/// Beside the codec, for the appgroup tool: ``OldStyleParser`` and ``OldStylePlist``
/// (the old-style text `defaults` reads and prints) and ``PlutilText`` (what
/// `plutil -p` and `plutil -convert json` make of a tree).
package enum PropertyListCodec {
    /// The formats this codec writes.
    package enum Format: Sendable {
        case binary
        case xml
    }

    /// The value `data` holds, binary or XML.
    /// - Throws: ``PropertyListError`` saying what is wrong (and where).
    package static func read(_ data: Data) throws(PropertyListError) -> PropertyListTree {
        if data.isEmpty { throw PropertyListError("the file is empty") }
        if BinaryPropertyListReader.isBinary(data) { return try BinaryPropertyListReader.read(data) }
        // Leading whitespace or a byte-order mark may precede the XML.
        let head = data.prefix(64).drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        if head.first == UInt8(ascii: "<") || data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
            return try XMLPropertyListReader.read(data)
        }
        throw PropertyListError("not a property list of \(data.count) bytes (neither binary nor XML; the old OpenStep text format is not read, convert it with plutil -convert xml1)")
    }

    /// The bytes of `tree` in `format`.
    /// - Throws: ``PropertyListError`` when the format cannot hold the value.
    package static func write(_ tree: PropertyListTree, format: Format) throws(PropertyListError) -> Data {
        switch format {
        case .binary: return try BinaryPropertyListWriter.write(tree)
        case .xml: return try XMLPropertyListWriter.write(tree)
        }
    }
}
