import Foundation
import PropertyLists
import Testing

/// The Codable coder over the codec's trees (what the keychain file uses): values
/// come back exactly, and files agree with Foundation's PropertyListEncoder and
/// PropertyListDecoder in both directions.
@Suite("Codable through property-list trees", .dedicatedThreads)
struct PropertyListTreeCoderTests {
    enum Kind: String, Codable, Equatable { case one, two }

    enum Attribute: Codable, Equatable {
        case string(String)
        case number(Int)
        case stamp(Date)
    }

    struct Record: Codable, Equatable {
        var name: String
        var twin: String
        var count: Int
        var big: UInt64
        var small: Int64
        var ratio: Double
        var single: Float
        var flag: Bool
        var when: Date
        var blob: Data
        var kind: Kind
        var optional: String?
        var missing: Int?
        var list: [Int]
        var nested: [String: Attribute]
        var matrix: [[Int8]]
    }

    static let record = Record(
        name: "caf\u{E9}", twin: "cafe\u{301}", count: -42, big: UInt64.max, small: Int64.min, ratio: -0.0, single: 1.5,
        flag: true, when: Date(timeIntervalSinceReferenceDate: -63_113_904_000), blob: Data([0, 1, 0xFF]), kind: .two,
        optional: "here", missing: nil, list: [], nested: ["a": .string("\u{1F600}"), "b": .number(7), "c": .stamp(Date(timeIntervalSinceReferenceDate: 0.5))],
        matrix: [[1, -2], [], [127]])

    @Test("a record of every type comes back exactly, twin strings kept apart")
    func roundTrip() throws {
        let tree = try PropertyListTreeEncoder().encode(Self.record)
        let back = try PropertyListTreeDecoder().decode(Record.self, from: tree)
        #expect(back == Self.record)
        #expect(back.name.utf8.elementsEqual("caf\u{E9}".utf8) && back.twin.utf8.elementsEqual("cafe\u{301}".utf8))
        #expect(back.ratio.sign == .minus, "-0.0 keeps its sign")
        let file = try PropertyListCodec.write(tree, format: .binary)
        #expect(try PropertyListTreeDecoder().decode(Record.self, from: PropertyListCodec.read(file)) == Self.record)
    }

    @Test("files agree with Foundation's PropertyListEncoder and PropertyListDecoder, binary and XML")
    func agreesWithFoundation() throws {
        // Not here: twins (Foundation's binary encoder stores the second as the first),
        // -0.0 (its writer may drop the sign), fractions of a second (XML dates have
        // none), and dates before the Gregorian calendar began: PropertyListEncoder's
        // XML dates of year 1 are two days off PropertyListSerialization's and
        // plistlib's (the codec agrees with those two, see PropertyListCodecTests).
        var record = Self.record
        record.twin = "different"
        record.ratio = 2.5
        record.when = Date(timeIntervalSinceReferenceDate: -978_307_200)
        record.nested["c"] = .stamp(Date(timeIntervalSinceReferenceDate: 86_400))
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format
            let foundation = try encoder.encode(record)
            let decoded = try PropertyListTreeDecoder().decode(Record.self, from: PropertyListCodec.read(foundation))
            #expect(decoded == record, "\(format): \(decoded)")
        }
        for format in [PropertyListCodec.Format.binary, .xml] {
            let mine = try PropertyListCodec.write(PropertyListTreeEncoder().encode(record), format: format)
            let decoded = try PropertyListDecoder().decode(Record.self, from: mine)
            #expect(decoded == record, "\(format): \(decoded)")
        }
    }

    @Test("a tree of the wrong shape is a DecodingError naming the key, never a crash")
    func wrongShapes() throws {
        var root = PropertyListDictionary()
        root.set(.string("x"), forKey: "count")
        #expect(throws: DecodingError.self) { try PropertyListTreeDecoder().decode(Record.self, from: .dictionary(root)) }
        do {
            _ = try PropertyListTreeDecoder().decode([String: Int8].self, from: .dictionary({
                var d = PropertyListDictionary()
                d.set(.integer(.signed(300)), forKey: "too big")
                return d
            }()))
            Issue.record("300 decoded as an Int8")
        } catch let error as DecodingError {
            #expect("\(error)".contains("too big"), "\(error)")
        }
        #expect(throws: DecodingError.self) { try PropertyListTreeDecoder().decode([Int].self, from: .string("not an array")) }
        #expect(throws: DecodingError.self) { try PropertyListTreeDecoder().decode(Date.self, from: .real(1)) }
        #expect(throws: DecodingError.self) { try PropertyListTreeDecoder().decode(UInt.self, from: .integer(.signed(-1))) }
    }
}
