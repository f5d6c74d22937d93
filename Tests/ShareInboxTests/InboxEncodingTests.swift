import AppGroupTesting
import AppGroupSimulation
import Foundation
import Testing
@testable import ShareInbox
import TestSupport

/// The enqueue's hand-written codings against what they replace:
/// the item record against `JSONEncoder`, the sequence line's parser against the
/// split-based one it replaced.
@Suite("Inbox encodings", .dedicatedThreads)
struct InboxEncodingTests {
    static let texts = ["", "plain", "quote \" and backslash \\ and slash /", "tab\tnew\nline\rbell\u{7}esc\u{1B}del\u{7F}",
                        "caf\u{E9}", "cafe\u{301}", "\u{1F600} \u{10FFFF}", "日本語", "\u{1}\u{1F}", String(repeating: "x", count: 4000)]
    static let dates: [Double] = [0, -0.0, 1, -1, 0.1, 1_733_021_234.123456, -63_113_904_000, 1e300, -1e300, .leastNonzeroMagnitude,
                                  .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, 1e-5, 123456789012345680]

    static func encodedByFoundation(_ record: ItemRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(record)
    }

    @Test("a hand-written record reads back as exactly the record JSONEncoder's bytes read back as (3,000 seeded records)")
    func recordsAgree() throws {
        var rng = SeededGenerator(seed: 0x15EC)
        for i in 0..<3_000 {
            func text() -> String? {
                Int.random(in: 0..<5, using: &rng) == 0 ? nil : Self.texts.randomElement(using: &rng).map { $0 + String(i % 7) }
            }
            let item = SharedItem(url: Int.random(in: 0..<3, using: &rng) == 0 ? nil : URL(string: "https://example.com/a%20b/\(i)?q=\"x\"&r=%E9"),
                                  title: text(), kind: ["public.url", "public.plain-text", "com.example.x-1"].randomElement(using: &rng)!,
                                  date: Date(timeIntervalSince1970: Self.dates.randomElement(using: &rng)! + Double(i % 3)))
            var record = try ItemRecord(validating: item, sender: text())
            for k in 0..<Int.random(in: 0...3, using: &rng) {
                record.attachments.append(.init(name: "file \(k) \u{E9}\"\\.bin", size: Int64.random(in: 0...ShareInbox.attachmentByteLimit, using: &rng)))
            }
            let mine = try record.encoded()
            let decoded = try ItemRecord.decode(mine, path: "record \(i)")
            // Compared by JSONEncoder's bytes: exact strings (not Swift's ==) and exact doubles.
            #expect(try Self.encodedByFoundation(decoded) == Self.encodedByFoundation(record),
                    "record \(i): \(String(decoding: mine, as: UTF8.self))")
            #expect(decoded.date.bitPattern == record.date.bitPattern || (decoded.date == 0 && record.date == 0), "record \(i)")
            #expect(!ItemRecord.nests(deeperThan: 3, mine))
        }
    }

    /// The parser the byte-level one replaced, kept here as the reference.
    static func splitParse(_ data: Data) -> (boot: String, number: UInt64)? {
        let line = data.prefix(while: { $0 != 0x0A })
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let number = UInt64(parts[1]) else { return nil }
        return (String(parts[0]), number)
    }

    @Test("the sequence line parser agrees with the split-based one on 20,000 seeded lines")
    func sequenceLinesAgree() {
        var rng = SeededGenerator(seed: 0x5E0)
        let alphabet: [UInt8] = Array("ab-09+ ".utf8) + [0x20, 0x20, 0x0A, 0xFF, 0xC3, 0xA9, 0x00, 0x09] + Array("18446744073709551615".utf8)
        var accepted = 0
        for i in 0..<20_000 {
            var bytes = (0..<Int.random(in: 0...48, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            if i % 3 == 0 { bytes = Array("boot-\(i)  \(UInt64.random(in: 0...UInt64.max, using: &rng))\n".utf8) + bytes }
            let data = Data(bytes)
            let mine = ShareInbox.parseSequence(data), reference = Self.splitParse(data)
            #expect(mine?.boot == reference?.boot && mine?.number == reference?.number, "line \(bytes)")
            if mine != nil { accepted += 1 }
        }
        #expect(accepted > 5_000)
    }
}

/// The drain's reader of the records this writer writes, against
/// `JSONDecoder`: it takes only bytes the decoder reads as the same record.
@Suite("Inbox canonical record reader", .dedicatedThreads)
struct InboxCanonicalRecordTests {
    static func decodedByFoundation(_ data: Data) -> ItemRecord? {
        try? JSONDecoder().decode(ItemRecord.self, from: data)
    }

    static func same(_ a: ItemRecord, _ b: ItemRecord) throws -> Bool {
        try InboxEncodingTests.encodedByFoundation(a) == InboxEncodingTests.encodedByFoundation(b)
            && (a.date.bitPattern == b.date.bitPattern || (a.date == 0 && b.date == 0))
    }

    @Test("records written without attachments are read by the canonical reader, as JSONDecoder reads them; with attachments or escapes it declines (3,000 seeded records)")
    func writtenRecords() throws {
        var rng = SeededGenerator(seed: 0xCA11)
        var taken = 0
        for i in 0..<3_000 {
            func text() -> String? {
                Int.random(in: 0..<4, using: &rng) == 0 ? nil : InboxEncodingTests.texts.randomElement(using: &rng).map { $0 + String(i % 7) }
            }
            let item = SharedItem(url: Int.random(in: 0..<3, using: &rng) == 0 ? nil : URL(string: "https://example.com/a%20b/\(i)?q=x&r=%E9"),
                                  title: text(), kind: ["public.url", "public.plain-text", "com.example.x-1"].randomElement(using: &rng)!,
                                  date: Date(timeIntervalSince1970: InboxEncodingTests.dates.randomElement(using: &rng)! + Double(i % 3)))
            var record = try ItemRecord(validating: item, sender: text())
            if i % 5 == 0 { record.attachments.append(.init(name: "file.bin", size: 3)) }
            let bytes = try record.encoded()
            let reference = try #require(Self.decodedByFoundation(bytes), "record \(i)")
            if let mine = ItemRecord.decodeCanonical(bytes) {
                taken += 1
                #expect(try Self.same(mine, reference), "record \(i): \(String(decoding: bytes, as: UTF8.self))")
            } else {
                let escapes = bytes.contains(UInt8(ascii: "\\"))
                #expect(!record.attachments.isEmpty || escapes, "record \(i) declined: \(String(decoding: bytes, as: UTF8.self))")
            }
            #expect(try Self.same(try ItemRecord.decode(bytes, path: "record \(i)"), reference), "record \(i)")
        }
        #expect(taken > 1_000)
    }

    @Test("bytes changed, cut or grown (30,000 seeded mutations of written records): what the canonical reader takes, JSONDecoder reads as the same record")
    func mutatedRecords() throws {
        var rng = SeededGenerator(seed: 0xB17E)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \abnrtux"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0x80]
        var taken = 0
        for i in 0..<30_000 {
            let item = SharedItem(url: URL(string: "https://example.com/\(i)"), title: i % 2 == 0 ? "title \(i)" : nil,
                                  date: Date(timeIntervalSince1970: InboxEncodingTests.dates[i % InboxEncodingTests.dates.count]))
            var bytes = [UInt8](try ItemRecord(validating: item, sender: i % 3 == 0 ? "ai.example.share" : nil).encoded())
            for _ in 0..<Int.random(in: 0...2, using: &rng) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: bytes = Array(bytes.prefix(at))
                }
            }
            let data = Data(bytes)
            guard let mine = ItemRecord.decodeCanonical(data) else { continue }
            taken += 1
            let reference = try #require(Self.decodedByFoundation(data), "taken but not JSON: \(String(decoding: data, as: UTF8.self))")
            #expect(try Self.same(mine, reference), "mutation \(i): \(String(decoding: data, as: UTF8.self))")
        }
        #expect(taken > 5_000)
    }
}
