import AppGroupContainer
import Foundation
import PropertyLists
import Testing
@testable import SharedDefaults
import TestSupport

/// Saves in a row through one instance re-encode only what they change (the
/// store keeps the encoding of what it saved), and the file is still exactly what
/// the codec writes of the suite's values: a reader, this package's or Apple's,
/// cannot tell which path wrote it.
@Suite("Saves that re-encode only what changed", .dedicatedThreads)
struct KeptEncodingSaveTests {
    @Test("300 saves in a row in a suite of 1,500 keys: each file is the codec's bytes for exactly the values set, and the whole suite is encoded once")
    func savesInARowKeepTheEncoding() throws {
        let device = try Device()
        let writer = try device.defaults()
        let file = writer.fileURL
        var expected = PropertyListDictionary()
        try writer.transaction { suite in
            for i in 0..<1_500 {
                switch i % 3 {
                case 0: try suite.set("value number \(i)", forKey: "key\(i)")
                case 1: try suite.set(i, forKey: "key\(i)")
                default: try suite.set(Double(i) / 3, forKey: "key\(i)")
                }
            }
        }
        for i in 0..<1_500 {
            expected.set(i % 3 == 0 ? .string("value number \(i)") : i % 3 == 1 ? .integer(.signed(Int64(i))) : .real(Double(i) / 3), forKey: "key\(i)")
        }
        let encodesBefore = writer.store.wholeEncodeCount
        for step in 0..<300 {
            let key = "key\(step % 7)"
            switch step % 6 {
            case 0, 1:
                // A counter whose values meet other keys' values (one object in the file) and part again.
                try writer.save(step, forKey: "counter")
                expected.set(.integer(.signed(Int64(step))), forKey: "counter")
            case 2:
                // A string equal to a key (stored once with it), then an array and a dictionary of shared scalars.
                try writer.save("key\(step)", forKey: key)
                expected.set(.string("key\(step)"), forKey: key)
            case 3:
                try writer.save([1, "key1", step] as [Any], forKey: "list\(step % 5)")
                expected.set(.array([.integer(.signed(1)), .string("key1"), .integer(.signed(Int64(step)))]), forKey: "list\(step % 5)")
            case 4:
                try writer.save(["n": step, "caf\u{E9}": "cafe\u{301}"] as [String: Any], forKey: "nested")
                var nested = PropertyListDictionary()
                nested.set(.integer(.signed(Int64(step))), forKey: "n")
                nested.set(.string("cafe\u{301}"), forKey: "caf\u{E9}")
                expected.set(.dictionary(nested), forKey: "nested")
            default:
                try writer.save(nil, forKey: "list\((step + 2) % 5)")
                expected.removeValue(forKey: "list\((step + 2) % 5)")
            }
            if step % 20 == 0 || step == 299 {
                let bytes = try Data(contentsOf: file)
                let tree = try PropertyListCodec.read(bytes)
                #expect(tree == .dictionary(expected), "step \(step): the file does not hold the values set")
                // In the file's own order of entries (a transaction's keys come in no set order).
                #expect(bytes == (try PropertyListCodec.write(tree, format: .binary)),
                        "step \(step): the file is not the codec's bytes for the suite")
            }
        }
        // Another instance (its own store and cache) reads the last values from the file.
        let reader = try device.defaults(as: device.share)
        #expect(reader.integer(forKey: "counter") == 295)
        #expect(reader.string(forKey: "key2") == "key296")
        #expect(reader.dictionary(forKey: "nested")?["n"] as? Int == 298)
        #expect(writer.store.wholeEncodeCount - encodesBefore <= 1,
                "\(writer.store.wholeEncodeCount - encodesBefore) whole encodes for 300 saves in a row")
    }

    @Test("after another instance's save, the next save encodes the whole suite again, from the values it read")
    func anotherWritersSaveIsNotPatched() throws {
        let device = try Device()
        let a = try device.defaults()
        let b = try device.defaults(as: device.share)
        for i in 0..<50 { try a.save(i, forKey: "a\(i)") }
        let before = a.store.wholeEncodeCount
        try b.save("from b", forKey: "b")
        try a.save(1, forKey: "a0")
        #expect(a.store.wholeEncodeCount == before + 1, "a patched an encoding of a file it no longer holds")
        let bytes = try Data(contentsOf: a.fileURL)
        guard case .dictionary(let values) = try PropertyListCodec.read(bytes) else { Issue.record("not a dictionary"); return }
        #expect(values["b"] == .string("from b"), "b's key was lost")
        #expect(values.count == 51)
        #expect(bytes == (try PropertyListCodec.write(.dictionary(values), format: .binary)))
    }
}
