import Foundation
import PropertyLists
import Testing

/// U+FEFF inside strings. Only a byte-order mark at the very start of
/// an XML document is a mark; as Apple's CFPropertyList does, a U+FEFF in a string's
/// content (first, inside, or alone) is a character like any other, so "\u{FEFF}k"
/// and "k" are two keys in every format, and every reader gives back what the writer wrote.
/// (Through a suite: SharedDefaultsTests' ByteOrderMarkSuiteTests.)
@Suite("Property-list strings holding U+FEFF", .dedicatedThreads)
struct PropertyListByteOrderMarkTests {
    /// Strings that begin with U+FEFF, hold it inside, or are only it; and their
    /// neighbours without it, which must stay apart from them.
    static let spellings = ["\u{FEFF}k", "k", "a\u{FEFF}b", "ab", "\u{FEFF}", "", "\u{FEFF}\u{FEFF}", "k\u{FEFF}",
                            "\u{FEFF}caf\u{E9}", "\u{FEFF}\u{0}k", "\u{FEFF}a\r\nb"]

    /// A dictionary holding every spelling as a key, each with itself as its value,
    /// and an array of them all.
    static var sample: PropertyListTree {
        var dictionary = PropertyListDictionary()
        for spelling in spellings { dictionary.set(.string(spelling), forKey: spelling) }
        dictionary.set(.array(spellings.map { .string($0) }), forKey: "\u{FEFF}list")
        return .dictionary(dictionary)
    }

    /// Fails unless `tree` holds exactly the sample: every key spelled as written, every value too.
    static func expectSample(_ tree: PropertyListTree, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .dictionary(let read) = tree else {
            Issue.record("\(what): not a dictionary", sourceLocation: sourceLocation)
            return
        }
        #expect(read.count == spellings.count + 1, "\(what): \(read.count) keys, \(read.keys.map { Array($0.unicodeScalars) })",
                sourceLocation: sourceLocation)
        for spelling in spellings {
            guard case .string(let value)? = read[spelling] else {
                Issue.record("\(what): no key \(Array(spelling.unicodeScalars))", sourceLocation: sourceLocation)
                continue
            }
            #expect(Array(value.unicodeScalars) == Array(spelling.unicodeScalars), "\(what): the value of \(Array(spelling.unicodeScalars))",
                    sourceLocation: sourceLocation)
        }
        #expect(read["\u{FEFF}list"] == .array(spellings.map { .string($0) }), "\(what): the array", sourceLocation: sourceLocation)
        // Key by key, by exact scalars (the tree's == compares them so as well).
        #expect(Set(read.keys.map { $0.unicodeScalars.map(\.value) }) == Set((spellings + ["\u{FEFF}list"]).map { $0.unicodeScalars.map(\.value) }),
                sourceLocation: sourceLocation)
    }

    @Test("the XML and binary writers and readers keep U+FEFF first, inside and alone, in keys and values; \"\\u{FEFF}k\" and \"k\" stay two keys")
    func roundTrips() throws {
        for format in [PropertyListCodec.Format.xml, .binary] {
            let bytes = try PropertyListCodec.write(Self.sample, format: format)
            Self.expectSample(try PropertyListCodec.read(bytes), "\(format)")
            if format == .binary {
                // The checking pass and the one-key lookup compare in the file, unit by unit.
                for spelling in Self.spellings {
                    let (_, found) = try BinaryPropertyListReader.check(bytes, lookingUp: spelling)
                    #expect(found == .string(spelling), "binary check(lookingUp:) of \(Array(spelling.unicodeScalars))")
                    #expect(try BinaryPropertyListReader.value(forKey: spelling, inCheckedDictionary: bytes) == .string(spelling),
                            "binary value(forKey:) of \(Array(spelling.unicodeScalars))")
                }
            }
        }
    }

    @Test("the XML writer puts U+FEFF in the text as the character (EF BB BF), never a mark at the document's start; the reader takes what it wrote")
    func whatTheXMLWriterWrites() throws {
        var dictionary = PropertyListDictionary()
        dictionary.set(.string("\u{FEFF}"), forKey: "\u{FEFF}k")
        dictionary.set(.string("plain"), forKey: "k")
        let bytes = [UInt8](try PropertyListCodec.write(.dictionary(dictionary), format: .xml))
        #expect(Array(bytes.prefix(5)) == Array("<?xml".utf8))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("<key>\u{FEFF}k</key>") && text.contains("<string>\u{FEFF}</string>") && text.contains("<key>k</key>"))
        let read = try XMLPropertyListReader.read(Data(bytes))
        #expect(read == .dictionary(dictionary))
        guard case .dictionary(let back) = read else { return }
        #expect(back.count == 2 && back["k"] == .string("plain") && back["\u{FEFF}k"] == .string("\u{FEFF}"))
    }

    @Test("in a hand-written XML file, the character reference &#xFEFF; and a literal U+FEFF after the document's mark are kept")
    func handWrittenXML() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>&#xFEFF;k</key><string>by reference</string>
            <key>k</key><string>plain</string>
            <key>\u{FEFF}\u{FEFF}</key><string>&#xFEFF;</string>
            <key>x</key><string><![CDATA[\u{FEFF}cdata]]></string>
            </dict></plist>
            """
        // The document's own mark (EF BB BF) is skipped; the content after it is not touched.
        for document in [Data(body.utf8), Data([0xEF, 0xBB, 0xBF] + Array(body.utf8))] {
            guard case .dictionary(let read) = try PropertyListCodec.read(document) else {
                Issue.record("not a dictionary")
                continue
            }
            #expect(read.count == 4, "\(read.keys.map { Array($0.unicodeScalars) })")
            #expect(read["\u{FEFF}k"] == .string("by reference"))
            #expect(read["k"] == .string("plain"))
            #expect(read["\u{FEFF}\u{FEFF}"] == .string("\u{FEFF}"))
            #expect(read["x"] == .string("\u{FEFF}cdata"))
        }
    }
}
