import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults

/// Issue 11, finding 3's codec on hostile bytes: every input gives a value or a
/// typed PropertyListError, never a crash, a hang or unbounded memory; through a
/// suite, a corrupt-suite diagnosis; stored Data handed to the Codable and URL
/// readers, an error or nil.
@Suite("Property-list codec on hostile input", .dedicatedThreads)
struct PropertyListCodecHostileTests {
    /// A bplist00 of raw `objects` (marker and content bytes each), with the given widths.
    static func bplist(_ objects: [[UInt8]], refSize: Int = 1, offsetSize: Int? = nil, top: UInt64 = 0,
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

    static func be(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    /// `depth` arrays, each holding the next; the last holds the integer 1.
    static func deepBinary(_ depth: Int) -> Data {
        var objects: [[UInt8]] = []
        for i in 0..<depth { objects.append([0xA1] + be(UInt64(i + 1), 4)) }
        objects.append([0x10, 1])
        return bplist(objects, refSize: 4, offsetSize: 4)
    }

    static func deepXML(_ depth: Int) -> Data {
        Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth)
            + "<integer>1</integer>" + String(repeating: "</array>", count: depth) + "</plist>").utf8)
    }

    static let cases: [(name: String, data: Data)] = [
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

    @Test("each hostile input is a typed PropertyListError, never a crash or hang (37 cases)")
    func refused() throws {
        #expect(Self.cases.count == 37)
        var refused = 0
        for (name, data) in Self.cases {
            do {
                let value = try PropertyListCodec.read(data)
                Issue.record("\(name): read as \(value.kind) instead of refused")
            } catch let error as PropertyListError {
                #expect(!error.message.isEmpty, "\(name)")
                refused += 1
            }
        }
        report("property-list codec: \(refused) of \(Self.cases.count) hostile binary and XML inputs (cycles, 100,000-deep nesting, 2^60-value reference bombs, huge counts, sets, bad trailers) refused with a typed error, 0 crashes")
    }

    @Test("every truncation of valid binary and XML files is refused or read, never a crash")
    func truncations() throws {
        var rng = SeededGenerator(seed: 0x7A11)
        var refused = 0
        for i in 0..<4 {
            var d = PropertyListDictionary()
            for k in 0..<Int.random(in: 1...20, using: &rng) {
                d.set(k % 3 == 0 ? .array([.string("caf\u{E9}\(k)"), .integer(.signed(Int64(k) << 40))]) : .data(Data(repeating: UInt8(k), count: k)),
                      forKey: "key\(k)-\(i)")
            }
            for format in [PropertyListCodec.Format.binary, .xml] {
                let data = try PropertyListCodec.write(.dictionary(d), format: format)
                for length in 0..<data.count {
                    if (try? PropertyListCodec.read(data.prefix(length))) == nil { refused += 1 }
                }
            }
        }
        #expect(refused > 0)
        report("property-list codec: \(refused) truncations of 4 seeded suites (binary and XML) refused or read, 0 crashes")
    }

    /// A valid suite of every type: nested containers, UTF-16 strings, twin keys,
    /// 16-byte integers, reals, dates, data; over 255 objects, so references are 2 bytes.
    static func everyTypeSuite() -> PropertyListTree {
        var inner = PropertyListDictionary()
        inner.set(.string("caf\u{E9} \u{1F600}"), forKey: "caf\u{E9}")
        inner.set(.string("decomposed"), forKey: "cafe\u{301}")
        inner.set(.integer(.unsigned(UInt64.max)), forKey: "big")
        inner.set(.integer(.signed(Int64.min)), forKey: "small")
        inner.set(.real(.nan), forKey: "nan")
        inner.set(.date(-63_113_904_000), forKey: "date")
        inner.set(.data(Data([0, 1, 2, 0xFF])), forKey: "data")
        inner.set(.bool(true), forKey: "flag")
        inner.set(.array([]), forKey: "empty")
        var root = PropertyListDictionary()
        root.set(.dictionary(inner), forKey: "inner")
        root.set(.array((0..<260).map { .integer(.signed(Int64($0) << 20)) }), forKey: "many")
        return .dictionary(root)
    }

    @Test("every byte of valid binary and XML files, mutated five ways, is read or refused with a typed error, never a crash")
    func everyByteMutated() throws {
        let small: PropertyListTree = {
            var d = PropertyListDictionary()
            d.set(.array([.string("\u{E9}t\u{E9}"), .integer(.unsigned(UInt64.max)), .real(-0.0), .date(1e9)]), forKey: "k")
            d.set(.dictionary(PropertyListDictionary()), forKey: "caf\u{E9}")
            return .dictionary(d)
        }()
        var files = [try PropertyListCodec.write(Self.everyTypeSuite(), format: .binary),
                     try PropertyListCodec.write(small, format: .binary),
                     try PropertyListCodec.write(small, format: .xml)]
        files.append(try PropertyListSerialization.data(fromPropertyList: ["a": [1, 2.5, "x\u{E9}"], "b": Data([1])], format: .binary, options: 0))
        var read = 0, refused = 0
        for file in files {
            let bytes = [UInt8](file)
            for position in bytes.indices {
                for mutation in [UInt8(0x00), 0xFF, bytes[position] ^ 0x01, bytes[position] ^ 0x80, bytes[position] &+ 0x10] where mutation != bytes[position] {
                    var mutated = bytes
                    mutated[position] = mutation
                    do {
                        _ = try PropertyListCodec.read(Data(mutated))
                        read += 1
                    } catch is PropertyListError {
                        refused += 1
                    } catch {
                        Issue.record("byte \(position) set to \(mutation): an untyped error \(error)")
                    }
                }
            }
        }
        #expect(read + refused >= 10_000, "at the fuzz tests' scale")
        report("property-list codec: every byte of \(files.count) valid files mutated five ways: \(read + refused) inputs, \(read) read, \(refused) refused with a typed error, 0 crashes")
    }

    @Test("hostile suite files are corrupt-suite diagnoses; the next write moves them aside and keeps working")
    func throughTheSuite() throws {
        for (name, data) in Self.cases where !data.isEmpty {
            let sandbox = try Sandbox()
            let defaults = try suite(sandbox)
            try FileManager.default.createDirectory(at: defaults.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: defaults.fileURL)
            #expect(throws: SharedDefaultsError.self, "\(name)") { try defaults.load(forKey: "a") }
            try defaults.save(1, forKey: "fresh")
            #expect(try suite(sandbox).integer(forKey: "fresh") == 1, "\(name)")
        }
    }

    @Test("hostile Data stored under a key: the Codable and URL readers give an error or nil, never a crash")
    func storedDataReaders() throws {
        let sandbox = try Sandbox()
        let defaults = try suite(sandbox)
        let hostile = [Self.deepXML(10_000), Self.deepXML(100_000), Self.deepBinary(100_000), binaryPlistWithSet(),
                       Self.bplist([[0xA1, 0x00]]), Self.bplist((0..<60).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 1]])]
        for (i, data) in hostile.enumerated() {
            try defaults.save(data, forKey: "blob")
            #expect(throws: SharedDefaultsError.self, "input \(i)") { try defaults.value([Int].self, forKey: "blob") }
            #expect(defaults.url(forKey: "blob") == nil, "input \(i)")
        }
    }
}
