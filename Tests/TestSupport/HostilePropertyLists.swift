import Foundation

/// Hostile property-list files: the codec's own tests (PropertyListCodecHostileTests,
/// PropertyListCheckTests) and the suite's (HostileSuiteFileTests) take the same
/// inputs, so the two layers are checked against one list.
package enum HostilePropertyLists {
    /// A bplist00 of raw `objects` (marker and content bytes each), with the given widths.
    package static func bplist(_ objects: [[UInt8]], refSize: Int = 1, offsetSize: Int? = nil, top: UInt64 = 0,
                       count: UInt64? = nil, tableOffset: UInt64? = nil) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        let size = offsetSize ?? (table < 256 ? 1 : table < 65536 ? 2 : 4)
        for offset in offsets { bytes += be(UInt64(offset), size) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(size), UInt8(refSize)]
        bytes += be(count ?? UInt64(objects.count), 8) + be(top, 8) + be(tableOffset ?? UInt64(table), 8)
        return Data(bytes)
    }

    package static func be(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    /// `depth` arrays, each holding the next; the last holds the integer 1.
    package static func deepBinary(_ depth: Int) -> Data {
        var objects: [[UInt8]] = []
        for i in 0..<depth { objects.append([0xA1] + be(UInt64(i + 1), 4)) }
        objects.append([0x10, 1])
        return bplist(objects, refSize: 4, offsetSize: 4)
    }

    package static func deepXML(_ depth: Int) -> Data {
        Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth)
            + "<integer>1</integer>" + String(repeating: "</array>", count: depth) + "</plist>").utf8)
    }

    package static let cases: [(name: String, data: Data)] = [
        ("reference out of range", bplist([[0xA1, 0x05], [0x10, 1]])),
        ("array containing itself", bplist([[0xA1, 0x00]])),
        ("dictionary whose value is itself", bplist([[0xD1, 0x01, 0x00], [0x51, 0x61]])),
        ("two arrays in a cycle", bplist([[0xA1, 0x01], [0xA1, 0x00]])),
        ("100,000 nested arrays", deepBinary(100_000)),
        ("60 arrays each holding the next twice (2^60 values)", bplist((0..<60).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 1]])),
        ("array claiming 2^62 elements", bplist([[0xAF, 0x13] + be(1 << 62, 8)])),
        ("string claiming 2^40 characters", bplist([[0x5F, 0x13] + be(1 << 40, 8)])),
        ("UTF-16 string claiming 2^62 units", bplist([[0x6F, 0x13] + be(1 << 62, 8)])),
        ("data claiming more bytes than the file", bplist([[0x4F, 0x10, 0xFF]])),
        ("length that is not an integer", bplist([[0x5F, 0x51, 0x61]])),
        ("a set", bplist([[0xC1, 0x01], [0x51, 0x61]])),
        ("a UID", bplist([[0x80, 0x01]])),
        ("a null object", bplist([[0x00]])),
        ("unknown marker", bplist([[0x70]])),
        ("dictionary with an integer key", bplist([[0xD1, 0x01, 0x01], [0x10, 1]])),
        ("integer wider than 64 bits", bplist([[0x14] + be(1, 8) + be(0, 8)])),
        ("unpaired UTF-16 surrogate", bplist([[0x61, 0xD8, 0x00]])),
        ("non-ASCII byte in an ASCII string", bplist([[0x51, 0xE9]])),
        ("offset size 0", bplist([[0x10, 1]], offsetSize: 0)),
        ("reference size 9", bplist([[0x10, 1]], refSize: 9)),
        ("top object out of range", bplist([[0x10, 1]], top: 7)),
        ("object count beyond the offset table", bplist([[0x10, 1]], count: 1 << 60)),
        ("offset table outside the file", bplist([[0x10, 1]], tableOffset: 1 << 50)),
        ("offset pointing into the trailer", Data(Array("bplist00".utf8) + [0x10, 1, 200] + [0, 0, 0, 0, 0, 0, 1, 1] + be(1, 8) + be(0, 8) + be(10, 8))),
        ("only a header", Data("bplist00".utf8)),
        ("version 15", Data("bplist15".utf8) + Data(repeating: 0, count: 40)),
        ("100,000 nested XML arrays", deepXML(100_000)),
        ("XML entity expansion", Data(#"<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><plist><string>&b;</string></plist>"#.utf8)),
        ("unterminated XML", Data("<plist><dict><key>a</key><string>b".utf8)),
        ("XML key without a value", Data("<plist><dict><key>a</key></dict></plist>".utf8)),
        ("XML value without a key", Data("<plist><dict><string>a</string></dict></plist>".utf8)),
        ("XML integer of 70 bits", Data("<plist><integer>1180591620717411303424</integer></plist>".utf8)),
        ("XML in UTF-16", Data([0xFE, 0xFF, 0, 0x3C])),
        ("XML unknown element", Data("<plist><set/></plist>".utf8)),
        ("OpenStep text", Data("{ a = b; }".utf8)),
        ("empty", Data()),
    ]
}

/// A binary property list whose root is a set holding the string "a": valid in the
/// format, never written by defaults, and a crash in Linux's Foundation reader.
package func binaryPlistWithSet() -> Data {
    var bytes = Array("bplist00".utf8)
    bytes += [0xC1, 0x01]            // object 0, at 8: a set of one, object 1
    bytes += [0x51, 0x61]            // object 1, at 10: the ASCII string "a"
    bytes += [8, 10]                 // the offset table, at 12
    bytes += [0, 0, 0, 0, 0, 0, 1, 1] // unused; offset and reference sizes
    for value: UInt64 in [2, 0, 12] { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    return Data(bytes)
}
