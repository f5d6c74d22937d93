import Foundation
import PropertyLists
import Testing
import TestSupport

/// The package's codec (``PropertyListCodec``),
/// which reads every file of the package, bounds nesting in every format with
/// constant stack (the screen that once stood before Foundation's parser is gone
/// with that parser).
@Suite("Property-list nesting limits", .tags(.hostile), .dedicatedThreads)
struct PropertyListDepthTests {
    static func xml(_ depth: Int, open: String = "<array>", close: String = "</array>") -> Data {
        Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">"
              + String(repeating: open, count: depth) + String(repeating: close, count: depth) + "</plist>").utf8)
    }

    /// A binary list whose objects 0..<n are arrays; `children(i)` lists object i's references.
    static func binary(_ count: Int, top: Int = 0, children: (Int) -> [Int]) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for i in 0..<count {
            offsets.append(UInt64(out.count))
            let refs = children(i)
            precondition(refs.count < 15)
            out.append(0xA0 | UInt8(refs.count))
            for ref in refs { out += withUnsafeBytes(of: UInt32(ref).bigEndian, Array.init) }
        }
        let table = out.count
        for offset in offsets { out += withUnsafeBytes(of: offset.bigEndian, Array.init) }
        out += [0, 0, 0, 0, 0, 0, 8, 4]
        for value in [UInt64(count), UInt64(top), UInt64(table)] { out += withUnsafeBytes(of: value.bigEndian, Array.init) }
        return Data(out)
    }

    /// The codec's message for `data`, or nil when it reads it.
    static func problem(in data: Data) -> String? {
        do {
            _ = try PropertyListCodec.read(data)
            return nil
        } catch { // a PropertyListError: the codec throws nothing else (typed throws)
            return error.message
        }
    }

    @Test("XML: 512 levels pass, 513 and 10,000 are refused; tags in comments and CDATA, and empty <array/>, do not count")
    func xmlDepth() {
        // The plist element itself is one level.
        #expect(Self.problem(in: Self.xml(511)) == nil)
        #expect(Self.problem(in: Self.xml(512))?.contains("nested deeper than 512") == true)
        #expect(Self.problem(in: Self.xml(10_000))?.contains("nested deeper than 512") == true)
        #expect(Self.problem(in: Self.xml(10_000, open: "<dict><key>k</key>", close: "</dict>")) != nil)
        let hidden = "<plist><array><!-- " + String(repeating: "<array>", count: 2000) + " --><string><![CDATA["
            + String(repeating: "<dict>", count: 2000) + "]]></string>" + String(repeating: "<array/>", count: 2000) + "</array></plist>"
        #expect(Self.problem(in: Data(hidden.utf8)) == nil)
        #expect(Self.problem(in: Data(String(repeating: "(", count: 10_000).utf8))?.contains("OpenStep") == true, "OpenStep text is not read")
        #expect(Self.problem(in: Data([0xFF, 0xFE, 0x3C, 0x00]))?.contains("UTF-16") == true, "nor UTF-16 XML")
    }

    @Test("binary: a 10,000-deep chain and a cycle are refused; a list sharing one object 2^40 ways is refused at once")
    func binaryDepth() {
        #expect(Self.problem(in: Self.binary(512) { $0 < 511 ? [$0 + 1] : [] }) == nil)
        #expect(Self.problem(in: Self.binary(513) { $0 < 512 ? [$0 + 1] : [] })?.contains("nested deeper than 512") == true)
        #expect(Self.problem(in: Self.binary(10_000) { $0 < 9_999 ? [$0 + 1] : [] }) != nil)
        #expect(Self.problem(in: Self.binary(3) { [($0 + 1) % 3] })?.contains("cycle") == true)
        // Each level references the next twice: 2^40 paths in 41 objects. The codec
        // expands shared objects (a tree has no sharing), so it stops at its value budget.
        #expect(Self.problem(in: Self.binary(41) { $0 < 40 ? [$0 + 1, $0 + 1] : [] })?.contains("expanding to more than") == true)
        #expect(Self.problem(in: Self.binary(12) { $0 < 11 ? [$0 + 1, $0 + 1] : [] }) == nil, "2^11 paths are read")
        // A subtree 400 deep, first met 1 level down (fine), then shared from 200 levels
        // down: 600 in all.
        let shared = Self.binary(601) { i in i < 200 ? [201, i + 1] : (i == 200 ? [] : (i < 600 ? [i + 1] : [])) }
        #expect(Self.problem(in: shared)?.contains("nested deeper") == true)
    }
}
