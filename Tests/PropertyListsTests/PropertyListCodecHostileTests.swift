import Foundation
import PropertyLists
import Testing
import TestSupport

/// The codec on hostile bytes: every input gives a value or a
/// typed PropertyListError, never a crash, a hang or unbounded memory. (Through a
/// suite, a corrupt-suite diagnosis, and stored Data handed to the Codable and URL
/// readers, an error or nil: SharedDefaultsTests' HostileSuiteFileTests.)
@Suite("Property-list codec on hostile input", .tags(.hostile), .dedicatedThreads)
struct PropertyListCodecHostileTests {
    @Test("each hostile input is a typed PropertyListError, never a crash or hang (37 cases)")
    func refused() throws {
        #expect(HostilePropertyLists.cases.count == 37)
        var refused = 0
        for (name, data) in HostilePropertyLists.cases {
            do {
                let value = try PropertyListCodec.read(data)
                Issue.record("\(name): read as \(value.kind) instead of refused")
            } catch {
                #expect(!error.message.isEmpty, "\(name)")
                refused += 1
            }
        }
        report("property-list codec: \(refused) of \(HostilePropertyLists.cases.count) hostile binary and XML inputs (cycles, 100,000-deep nesting, 2^60-value reference bombs, huge counts, sets, bad trailers) refused with a typed error, 0 crashes")
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
                    } catch { // a PropertyListError: the codec throws nothing else (typed throws)
                        refused += 1
                    }
                }
            }
        }
        #expect(read + refused >= 10_000, "at the fuzz tests' scale")
        report("property-list codec: every byte of \(files.count) valid files mutated five ways: \(read + refused) inputs, \(read) read, \(refused) refused with a typed error, 0 crashes")
    }
}
