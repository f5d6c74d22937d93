import Foundation
import PropertyLists
import Testing

/// A key read alone from a checked file (a suite's first read after another
/// process's save) against the full read, on the seeded values of
/// ``PropertyListCodecTests``.
@Suite("One-key reads against the full read", .dedicatedThreads)
struct PropertyListLookupTests {
    /// Every key of the dictionary in `data`, keys it lacks (one scalar more or less,
    /// the other normalization form) and a few fixed ones, read alone.
    static func expectLookupsAgree(_ data: Data, _ label: String) throws {
        guard case .dictionary(let values) = try BinaryPropertyListReader.read(data) else { return }
        #expect(try BinaryPropertyListReader.check(data).kind == "dictionary", "\(label)")
        var probes = values.keys + ["", "a", "caf\u{E9}", "cafe\u{301}", "k\u{E9}y", "ke\u{301}y", "\u{1F600}"]
        for key in values.keys {
            probes += [key + "x", String(key.unicodeScalars.dropLast()), key.precomposedStringWithCanonicalMapping, key.decomposedStringWithCanonicalMapping]
        }
        for key in probes {
            let alone = try BinaryPropertyListReader.value(forKey: key, inCheckedDictionary: data)
            let expected = values[key]
            // The same key found on the check's own pass.
            let onCheck = try BinaryPropertyListReader.check(data, lookingUp: key).value
            #expect(onCheck.flatMap { a in alone.map { PropertyListCodecTests.same(a, $0) } } ?? (onCheck == nil && alone == nil),
                    "\(label): key \(key.unicodeScalars.map(\.value)) found by the check differs from the one read alone")
            let agree = alone.flatMap { a in expected.map { PropertyListCodecTests.same(a, $0) } } ?? (expected == nil && alone == nil)
            #expect(agree, "\(label): key \(key.unicodeScalars.map(\.value)) read alone is \(String(describing: alone)), the full read has \(String(describing: expected))")
        }
    }

    @Test("a key read alone equals the full read's value: the seeded dictionaries among 2,000 values written here and 600 written by Foundation")
    func lookupsAgree() throws {
        var written = 0
        for (i, tree) in PropertyListCodecTests.samples(2_000, seed: 0x1E57, .init()).enumerated() {
            guard case .dictionary = tree else { continue }
            try Self.expectLookupsAgree(try PropertyListCodec.write(tree, format: .binary), "sample \(i)")
            written += 1
        }
        #expect(written >= 1_000)
        let options = PropertyListCodecTests.Options(twins: false, wholeSeconds: true)
        for (i, tree) in PropertyListCodecTests.samples(600, seed: 0xF0, options).enumerated() {
            guard case .dictionary = tree else { continue }
            let data = try PropertyListSerialization.data(fromPropertyList: PropertyListCodecTests.foundationObject(tree), format: .binary, options: 0)
            try Self.expectLookupsAgree(data, "Foundation's file \(i)")
        }
    }
}
