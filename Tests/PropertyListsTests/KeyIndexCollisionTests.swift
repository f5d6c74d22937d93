import Foundation
@testable import PropertyLists
import Testing
import TestSupport

/// Dictionaries index their keys with a cheap seeded hash. Keys crafted
/// to collide under it must cost no more than SipHash would, and must never be
/// confused with one another.
@Suite("Dictionary key index under colliding keys", .tags(.hostile), .dedicatedThreads)
struct KeyIndexCollisionTests {
    /// A suite of `count` keys, some differing only in normalization or by a byte.
    static func keys(_ count: Int) -> [String] {
        (0..<count).map { i in
            switch i % 4 {
            case 0: return "key\(i)"
            case 1: return "caf\u{E9}\(i)"
            case 2: return "cafe\u{301}\(i)"
            default: return String(repeating: "x", count: i % 40) + "\(i)"
            }
        }
    }

    @Test("a file whose 5,000 keys all collide is read in full, each key to its own value, by a hardened index")
    func collidingFile() throws {
        let keys = Self.keys(5_000)
        var written = PropertyListDictionary()
        for (i, key) in keys.enumerated() { written.set(.integer(.signed(Int64(i))), forKey: key) }
        let bytes = try PropertyListCodec.write(.dictionary(written), format: .binary)
        let read = try KeyIndex.$collidingForTests.withValue(true) { try PropertyListCodec.read(bytes) }
        guard case .dictionary(let dictionary) = read else {
            Issue.record("not a dictionary: \(read.kind)")
            return
        }
        #expect(dictionary.indexIsHardened, "5,000 equal hashes are a crafted file: the index must switch to SipHash")
        #expect(dictionary.count == keys.count)
        for (i, key) in keys.enumerated() {
            #expect(dictionary[key] == .integer(.signed(Int64(i))), "\(key)")
        }
        #expect(dictionary["cafe\u{301}1"] == nil && dictionary["caf\u{E9}2"] == nil, "normalization twins stay apart")
        #expect(dictionary == written)
    }

    @Test("setting and removing keys whose hashes collide keeps every other key where it was")
    func collidingEdits() {
        KeyIndex.$collidingForTests.withValue(true) {
            var dictionary = PropertyListDictionary()
            let keys = Self.keys(300)
            for (i, key) in keys.enumerated() { dictionary.set(.integer(.signed(Int64(i))), forKey: key) }
            #expect(dictionary.indexIsHardened)
            for key in keys.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) { dictionary.removeValue(forKey: key) }
            dictionary.set(.string("again"), forKey: keys[3])
            for (i, key) in keys.enumerated() {
                let expected: PropertyListTree? = i == 3 ? .string("again") : i % 3 == 0 ? nil : .integer(.signed(Int64(i)))
                #expect(dictionary[key] == expected, "\(key)")
            }
            #expect(dictionary.keys.last == keys[3], "a key set again after its removal goes last")
        }
    }

    @Test("a key given twice in a file: the last value wins, at the first one's place")
    func duplicateKeys() throws {
        // Written by hand: no writer emits a key twice. Objects: dict, "a", "b", 1, 2, 3.
        var bytes: [UInt8] = Array("bplist00".utf8)
        let dictionary = bytes.count
        bytes += [0xD3, 1, 2, 1, 3, 4, 5] // {a: 1, b: 2, a: 3}
        let a = bytes.count; bytes += [0x51, 0x61]
        let b = bytes.count; bytes += [0x51, 0x62]
        let one = bytes.count; bytes += [0x10, 1]
        let two = bytes.count; bytes += [0x10, 2]
        let three = bytes.count; bytes += [0x10, 3]
        let table = bytes.count
        bytes += [dictionary, a, b, one, two, three].map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 6] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        guard case .dictionary(let read) = try PropertyListCodec.read(Data(bytes)) else {
            Issue.record("not a dictionary")
            return
        }
        #expect(read.keys == ["a", "b"])
        #expect(read["a"] == .integer(.signed(3)) && read["b"] == .integer(.signed(2)))
    }
}
