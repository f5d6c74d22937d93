import Foundation
import PropertyLists
import Testing
import TestSupport

/// A suite read after another process's save checks the whole file and decodes one
/// value. These tests hold that path to the full reader: the check
/// refuses exactly what a full read refuses, and a key read alone is exactly the
/// value the full read gives it (seeded values: PropertyListLookupTests; through a
/// suite: SharedDefaultsTests' HostileSuiteFileTests).
@Suite("Property-list check and one-key reads", .dedicatedThreads)
struct PropertyListCheckTests {
    /// Exactly equal: the same bytes from the codec's writer (strings by code unit,
    /// reals by bits, entries in order).
    static func same(_ a: PropertyListTree?, _ b: PropertyListTree?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return (try? PropertyListCodec.write(a, format: .binary)) == (try? PropertyListCodec.write(b, format: .binary))
    }

    /// Fails the test unless `data` gets the same verdict from the check as from a
    /// full read and, when it is a dictionary, every key (and keys it lacks) reads alone
    /// as in the full read. Returns whether the full read accepted it.
    @discardableResult
    static func agree(_ data: Data, _ label: String, probing: Bool = true) -> Bool {
        let full: PropertyListTree
        do {
            full = try BinaryPropertyListReader.read(data)
        } catch {
            #expect(throws: PropertyListError.self, "\(label): the full read refused it, the check must too") {
                try BinaryPropertyListReader.check(data)
            }
            #expect(throws: PropertyListError.self, "\(label): the full read refused it, the check looking up a key must too") {
                try BinaryPropertyListReader.check(data, lookingUp: "a")
            }
            return false
        }
        let checked: PropertyListTree
        do {
            checked = try BinaryPropertyListReader.check(data)
        } catch {
            Issue.record("\(label): the full read accepted it, the check refused: \(error)")
            return true
        }
        #expect(checked.kind == full.kind, "\(label)")
        guard case .dictionary(let values) = full else {
            #expect((try? BinaryPropertyListReader.value(forKey: "a", inCheckedDictionary: data)) == .some(nil), "\(label): not a dictionary")
            return true
        }
        var probes = values.keys
        for key in values.keys where probing {
            probes += [key + "x", String(key.unicodeScalars.dropLast()), key.precomposedStringWithCanonicalMapping,
                       key.decomposedStringWithCanonicalMapping]
        }
        if probing { probes += ["", "a", "caf\u{E9}", "cafe\u{301}", "\u{1F600}"] }
        for key in probes {
            do {
                let alone = try BinaryPropertyListReader.value(forKey: key, inCheckedDictionary: data)
                let onCheck = try BinaryPropertyListReader.check(data, lookingUp: key)
                #expect(onCheck.root.kind == "dictionary" && Self.same(onCheck.value, values[key]), "\(label): key \(key) found by the check differs")
                #expect(Self.same(alone, values[key]), "\(label): key \(Array(key.unicodeScalars.map(\.value))) read alone differs from the full read")
            } catch {
                Issue.record("\(label): key \(key) read alone threw \(error) from a file the check accepted")
            }
        }
        return true
    }

    @Test("keys given twice and UTF-16 keys read alone as the full read reads them")
    func craftedKeys() throws {
        // A key given twice (ASCII and as UTF-16): the last value, as the full read keeps it.
        let hostile = HostilePropertyLists.self
        let twice = hostile.bplist([[0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x6B], [0x61, 0x00, 0x6B], [0x51, 0x6B], [0x10, 1], [0x10, 2], [0x10, 3]])
        #expect(Self.agree(twice, "a key given three times"))
        #expect(try BinaryPropertyListReader.value(forKey: "k", inCheckedDictionary: twice) == .integer(.signed(3)))
        // UTF-16 keys with a surrogate pair, against keys one scalar longer or shorter.
        let emoji = hostile.bplist([[0xD2, 1, 2, 3, 4], [0x62, 0xD8, 0x3D, 0xDE, 0x00], [0x63, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0x61], [0x10, 7], [0x10, 8]])
        #expect(Self.agree(emoji, "UTF-16 keys"))
        #expect(try BinaryPropertyListReader.value(forKey: "\u{1F600}", inCheckedDictionary: emoji) == .integer(.signed(7)))
        #expect(try BinaryPropertyListReader.value(forKey: "\u{1F600}a", inCheckedDictionary: emoji) == .integer(.signed(8)))
    }

    @Test("the check refuses exactly what the full read refuses: the hostile inputs, every truncation, every byte mutated five ways", .tags(.hostile))
    func checkRefusesWhatReadRefuses() throws {
        var accepted = 0, refused = 0
        func tally(_ data: Data, _ label: String) {
            // Only the file's own keys: mutations alone already make 20,000 inputs.
            if Self.agree(data, label, probing: false) { accepted += 1 } else { refused += 1 }
        }
        for (name, data) in HostilePropertyLists.cases where data.starts(with: Array("bplist".utf8)) {
            tally(data, name)
        }
        let files = [try PropertyListCodec.write(PropertyListCodecHostileTests.everyTypeSuite(), format: .binary),
                     try PropertyListSerialization.data(fromPropertyList: ["a": [1, 2.5, "x\u{E9}"], "b": Data([1]), "caf\u{E9}": ["d": true]],
                                                        format: .binary, options: 0)]
        for file in files {
            for length in 0..<file.count { tally(file.prefix(length), "a truncation to \(length) bytes") }
            let bytes = [UInt8](file)
            for position in bytes.indices {
                for mutation in [UInt8(0x00), 0xFF, bytes[position] ^ 0x01, bytes[position] ^ 0x80, bytes[position] &+ 0x10] where mutation != bytes[position] {
                    var mutated = bytes
                    mutated[position] = mutation
                    tally(Data(mutated), "byte \(position) set to \(mutation)")
                }
            }
        }
        #expect(accepted > 100 && refused > 1_000)
        report("property-list check: \(accepted + refused) binary inputs (hostile, truncated, mutated): \(refused) refused by both the check and the full read, \(accepted) accepted by both, every key read alone as the full read reads it")
    }
}
