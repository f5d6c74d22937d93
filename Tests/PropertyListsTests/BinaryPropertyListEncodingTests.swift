import Foundation
import PropertyLists
import Testing
import TestSupport

/// The kept encoding (`BinaryPropertyListEncoding`) is a second writer: after any
/// series of changes its bytes must be exactly the writer's bytes for the
/// dictionary the changes made. Every mismatch here is a bug in it.
@Suite("The kept encoding against the writer", .dedicatedThreads)
struct BinaryPropertyListEncodingTests {
    typealias Generator = PlainEntriesTests.Generator

    /// Values chosen to meet each other: few distinct ones, strings that equal
    /// keys, 1 and 1.0, 0.0 and -0.0, NaNs, twin spellings, nested containers that
    /// repeat scalars used elsewhere, long strings and data (lengths over 14).
    static func value(_ g: inout Generator, depth: Int = 0) -> PropertyListTree {
        switch g.below(depth < 2 ? 14 : 12) {
        case 0: return .bool(g.below(2) == 0)
        case 1: return .integer(.signed(Int64(g.below(20))))
        case 2: return .integer(.signed(Int64(bitPattern: g.next())))
        case 3: return .integer(.unsigned(UInt64.max - UInt64(g.below(3))))
        case 4: return .real([1.0, 0.0, -0.0, .nan, Double(g.below(5)) / 3][g.below(5)])
        case 5: return .date(Double(g.below(4)))
        case 6: return .string(key(&g))
        case 7: return .string(["caf\u{E9}", "cafe\u{301}", "\u{1F600}", ""][g.below(4)])
        case 8: return .string(String(repeating: "x", count: g.below(300)))
        case 9: return .data(Data(repeating: UInt8(g.below(3)), count: g.below(40)))
        case 10: return .integer(.signed(Int64(g.below(70_000))))
        case 11: return .string("value \(g.below(30))")
        case 12: return .array((0..<g.below(20)).map { _ in value(&g, depth: depth + 1) })
        default:
            var d = PropertyListDictionary()
            for _ in 0..<g.below(18) { d.set(value(&g, depth: depth + 1), forKey: key(&g)) }
            return .dictionary(d)
        }
    }

    static func key(_ g: inout Generator) -> String { "k\(g.below(60))" }

    @Test("after each of thousands of random sets, additions and removals, the kept encoding writes the writer's bytes")
    func keptEncodingMatchesTheWriter() throws {
        var checked = 0
        for seed in 1...8 {
            var g = Generator(state: 0x9E37_79B9_7F4A_7C15 &* UInt64(seed))
            var dictionary = PropertyListDictionary()
            // Start from a suite of several sizes (references and offsets of 1 and 2 bytes).
            for _ in 0..<[0, 5, 40, 300][seed % 4] { dictionary.set(Self.value(&g), forKey: Self.key(&g) + "-\(g.below(400))") }
            var (data, encoding) = try BinaryPropertyListEncoding.make(dictionary)
            #expect(data == (try BinaryPropertyListWriter.write(.dictionary(dictionary))))
            for step in 0..<200 {
                let key = Self.key(&g)
                if g.below(5) == 0 {
                    if let at = dictionary.index(forKey: key) {
                        dictionary.removeValue(forKey: key)
                        encoding.remove(at: at)
                    }
                } else {
                    let value = Self.value(&g)
                    if let at = dictionary.index(forKey: key) {
                        dictionary.setValue(value, at: at)
                        try encoding.replaceValue(at: at, with: value)
                    } else {
                        dictionary.set(value, forKey: key)
                        try encoding.append(key: key, value: value)
                    }
                }
                let expected = try BinaryPropertyListWriter.write(.dictionary(dictionary))
                let kept = encoding.encode()
                #expect(kept == expected, "seed \(seed), step \(step): \(kept.count) bytes against the writer's \(expected.count)")
                if kept != expected { return }
                #expect(try PropertyListCodec.read(kept) == .dictionary(dictionary))
                checked += 1
            }
        }
        #expect(checked == 8 * 200)
    }

    @Test("a counter set thousands of times in a suite of 2,000 keys: same bytes, and once the unused values outnumber the live ones a rebuild is asked for")
    func counterInALargeSuite() throws {
        var dictionary = PropertyListDictionary()
        for i in 0..<2_000 { dictionary.set(i % 3 == 0 ? .string("value \(i)") : .integer(.signed(Int64(i))), forKey: "key\(i)") }
        var (_, encoding) = try BinaryPropertyListEncoding.make(dictionary)
        let at = try #require(dictionary.index(forKey: "key0"))
        var rebuildAsked = false
        for i in 1...8_000 {
            // Values that meet other keys' values (merged into one object) and values of their own.
            let value = PropertyListTree.integer(.signed(Int64(i)))
            dictionary.setValue(value, at: at)
            try encoding.replaceValue(at: at, with: value)
            if i % 499 == 0 || i < 10 {
                #expect(encoding.encode() == (try BinaryPropertyListWriter.write(.dictionary(dictionary))), "after \(i) sets")
            }
            if encoding.needsRebuild { rebuildAsked = true; break }
        }
        #expect(rebuildAsked, "8,000 distinct values dropped and no rebuild asked for")
    }

    @Test("a value nested deeper than the writer writes is refused by the kept encoding too", .tags(.hostile))
    func tooDeepIsRefused() throws {
        var (_, encoding) = try BinaryPropertyListEncoding.make(PropertyListDictionary())
        var deep = PropertyListTree.array([])
        for _ in 0..<PropertyListLimits.maximumDepth { deep = .array([deep]) }
        #expect(throws: PropertyListError.self) { try encoding.append(key: "deep", value: deep) }
        #expect(throws: PropertyListError.self) { try BinaryPropertyListWriter.write(.dictionary(PropertyListDictionary([("deep", deep)]))) }
    }
}
