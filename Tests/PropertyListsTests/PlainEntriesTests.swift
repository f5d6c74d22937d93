import Foundation
import PropertyLists
import Testing
import TestSupport

/// The plain-entries check (`BinaryPropertyListPlainEntries.swift`) is a
/// second implementation of the general check for the commonest suites: it may
/// leave any file to the general check, but a file it accepts must be one the
/// general check accepts, with the same value found for every key. Every mismatch
/// here is a bug in it.
@Suite("The plain-entries check against the general check", .dedicatedThreads)
struct PlainEntriesTests {
    /// A small deterministic generator (xorshift64*), so that a failure repeats.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func ascii(_ length: Int) -> String {
            String(decoding: (0..<length).map { _ in UInt8(0x20 + below(95)) }, as: UTF8.self)
        }
    }

    /// A dictionary of `count` entries: ASCII keys of 0 to 40 bytes (so lengths of 15
    /// and more, written with an integer after the marker), scalar values of every
    /// kind the plain check takes; `irregular` mixes in what it must leave alone
    /// (UTF-16 strings and keys, 16-byte integers, nested containers).
    static func dictionary(_ count: Int, _ g: inout Generator, irregular: Bool, dataLength: Int = 40) -> PropertyListTree {
        var d = PropertyListDictionary()
        while d.count < count {
            let key = irregular && g.below(40) == 0 ? "k\u{E9}\(g.below(1000))" : g.ascii(g.below(41))
            let value: PropertyListTree
            switch g.below(irregular ? 11 : 8) {
            case 0: value = .bool(g.below(2) == 0)
            case 1: value = .integer(.signed(Int64(bitPattern: g.next()) >> g.below(64)))
            case 2: value = .integer(.signed(Int64(g.below(300))))
            case 3: value = .real(Double(bitPattern: g.next()))
            case 4: value = .date(Double(g.below(1 << 30)) / 7)
            case 5: value = .data(Data((0..<g.below(dataLength + 1)).map { _ in UInt8(truncatingIfNeeded: g.next()) }))
            case 6, 7: value = .string(g.ascii(g.below(41)))
            case 8: value = .string("\u{1F600}\(g.below(100))")
            case 9: value = .integer(.unsigned(UInt64.max - UInt64(g.below(100))))
            default: value = .array([.integer(.signed(1)), .string("x")])
            }
            d.set(value, forKey: key)
        }
        return .dictionary(d)
    }

    /// The keys to look up in `data`: its own (read by the full reader when it
    /// accepts the file), a few it lacks, and the empty key.
    static func probes(_ data: Data) -> [String?] {
        var keys: [String?] = [nil, "", "absent key", "k"]
        if case .dictionary(let d)? = try? BinaryPropertyListReader.read(data) { keys += d.keys.prefix(40).map { $0 } }
        return keys
    }

    /// Compares the two checks on `data` for every probe; returns whether the plain
    /// check decided at least once.
    @discardableResult
    static func agree(_ data: Data, _ label: String, mismatches: inout Int) -> Bool {
        var decided = false
        for key in probes(data) {
            let (plain, general) = BinaryPropertyListReader.bothChecks(data, lookingUp: key)
            guard let plain else { continue }
            decided = true
            switch general {
            case .success(let found) where found == plain: break
            default:
                mismatches += 1
                Issue.record("\(label), key \(String(describing: key)): the plain check found \(String(describing: plain)), the general check \(general)")
            }
        }
        return decided
    }

    @Test("plainEntriesAgree: generated suites of every width, mutated, truncated and crafted, get the same verdict and the same value", .tags(.hostile))
    func plainEntriesAgree() throws {
        var g = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var mismatches = 0, inputs = 0, decided = 0
        func run(_ data: Data, _ label: String) {
            inputs += 1
            if Self.agree(data, label, mismatches: &mismatches) { decided += 1 }
        }
        // Plain suites: offsets of 1, 2 and 4 bytes, references of 1 and 2. Each must
        // be decided by the plain check, and every key read through `check` must be
        // the full read's.
        var plainFiles: [Data] = []
        for (count, dataLength) in [(0, 40), (1, 40), (3, 40), (14, 40), (15, 40), (60, 40), (100, 40), (300, 40), (200, 600)] {
            for _ in 0..<3 {
                let data = try PropertyListCodec.write(Self.dictionary(count, &g, irregular: false, dataLength: dataLength), format: .binary)
                #expect(Self.agree(data, "plain suite of \(count)", mismatches: &mismatches), "a plain suite of \(count) keys was left to the general check")
                #expect(PropertyListCheckTests.agree(data, "plain suite of \(count)", probing: false))
                inputs += 1; decided += 1
                plainFiles.append(data)
            }
        }
        // Four-byte offsets: a file past 64 KiB (data values), with 1- and 2-byte references.
        for (count, size) in [(100, 1_400), (300, 700)] {
            var d = PropertyListDictionary()
            for i in 0..<count { d.set(i % 2 == 0 ? .data(Data(repeating: UInt8(i & 0xFF), count: size)) : .string(g.ascii(30)), forKey: "key \(i)") }
            let data = try PropertyListCodec.write(.dictionary(d), format: .binary)
            #expect(Self.agree(data, "a large suite of \(count)", mismatches: &mismatches), "a large plain suite was left to the general check")
            #expect(PropertyListCheckTests.agree(data, "a large suite of \(count)", probing: false))
            inputs += 1; decided += 1
            plainFiles.append(data)
        }
        let widths = Set(plainFiles.map { [$0[$0.count - 26], $0[$0.count - 25]] })
        #expect(widths.isSuperset(of: [[1, 1], [2, 1], [2, 2], [4, 1], [4, 2]]), "offset and reference widths covered: \(widths)")
        // Suites with what the plain check leaves alone, mixed in.
        for count in [5, 40, 150] {
            for _ in 0..<5 {
                run(try PropertyListCodec.write(Self.dictionary(count, &g, irregular: true), format: .binary), "irregular suite of \(count)")
            }
        }
        // Every byte of small plain suites mutated five ways, and every truncation.
        for data in plainFiles where data.count <= 700 {
            let bytes = [UInt8](data)
            for length in 0..<bytes.count { run(Data(bytes[..<length]), "a truncation to \(length) bytes") }
            for position in bytes.indices {
                for mutation in [UInt8(0x00), 0xFF, bytes[position] ^ 0x01, bytes[position] ^ 0x80, bytes[position] &+ 0x10] where mutation != bytes[position] {
                    var mutated = bytes
                    mutated[position] = mutation
                    run(Data(mutated), "byte \(position) set to \(mutation)")
                }
            }
        }
        // Larger ones: random bytes mutated.
        for data in plainFiles where data.count > 700 {
            var bytes = [UInt8](data)
            for _ in 0..<300 {
                let position = g.below(bytes.count), old = bytes[position]
                bytes[position] = UInt8(truncatingIfNeeded: g.next())
                run(Data(bytes), "a large suite, byte \(position) set to \(bytes[position])")
                bytes[position] = old
            }
        }
        // Crafted: what a hostile writer would aim at the plain check's shortcuts.
        let h = HostilePropertyLists.self
        let crafted: [(String, Data)] = [
            ("a key given twice", h.bplist([[0xD2, 1, 2, 3, 4], [0x51, 0x6B], [0x51, 0x6B], [0x10, 1], [0x10, 2]])),
            ("a value that is the dictionary itself", h.bplist([[0xD1, 1, 0], [0x51, 0x6B]])),
            ("a key that is the dictionary itself", h.bplist([[0xD1, 0, 1], [0x10, 1]])),
            ("a key that is an integer", h.bplist([[0xD1, 1, 2], [0x10, 1], [0x10, 2]])),
            ("a key that is a UTF-16 string", h.bplist([[0xD1, 1, 2], [0x61, 0x00, 0x6B], [0x10, 2]])),
            ("a non-ASCII byte in an ASCII key", h.bplist([[0xD1, 1, 2], [0x51, 0xE9], [0x10, 2]])),
            ("a non-ASCII byte in an ASCII value", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x52, 0x61, 0x80]])),
            ("a 16-byte integer above 64 bits", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x14] + [UInt8](repeating: 1, count: 16)])),
            ("a 16-byte negative integer", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x14] + [UInt8](repeating: 0xFF, count: 16)])),
            ("an integer of 32 bytes", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x15] + [UInt8](repeating: 0, count: 32)])),
            ("a real of 2 bytes", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x21, 0, 0]])),
            ("a date marker of 4 bytes", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x32, 0, 0, 0, 0]])),
            ("a null", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x00]])),
            ("a fill byte", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x0F]])),
            ("a UID", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x80, 1]])),
            ("a set", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0xC0]])),
            ("a long key, 1-byte length", h.bplist([[0xD1, 1, 2], [0x5F, 0x10, 16] + [UInt8](repeating: 0x61, count: 16), [0x10, 2]])),
            ("a long key, 2-byte length", h.bplist([[0xD1, 1, 2], [0x5F, 0x11, 0, 16] + [UInt8](repeating: 0x61, count: 16), [0x10, 2]])),
            ("a long key, 4-byte length", h.bplist([[0xD1, 1, 2], [0x5F, 0x12, 0, 0, 0, 16] + [UInt8](repeating: 0x61, count: 16), [0x10, 2]])),
            ("a long key, 8-byte length", h.bplist([[0xD1, 1, 2], [0x5F, 0x13, 0, 0, 0, 0, 0, 0, 0, 16] + [UInt8](repeating: 0x61, count: 16), [0x10, 2]])),
            ("a key's length past the end", h.bplist([[0xD1, 1, 2], [0x5F, 0x10, 200, 0x61], [0x10, 2]])),
            ("a key's length of 2^31", h.bplist([[0xD1, 1, 2], [0x5F, 0x12, 0x80, 0, 0, 0, 0x61], [0x10, 2]])),
            ("a key's length integer not an integer", h.bplist([[0xD1, 1, 2], [0x5F, 0x20, 1, 0x61], [0x10, 2]])),
            ("data whose length passes the end", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x4F, 0x11, 0xFF, 0xFF]])),
            ("an integer cut by the offset table", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x13, 0, 0]])),
            ("a dictionary longer than the file", h.bplist([[0xDF, 0x10, 100, 1, 2], [0x51, 0x6B], [0x10, 2]])),
            ("a reference past the objects", h.bplist([[0xD1, 1, 9], [0x51, 0x6B], [0x10, 2]])),
            ("an offset outside the object area", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x10, 2]], tableOffset: 12)),
            ("an array at the top", h.bplist([[0xA1, 1], [0x10, 2]])),
            ("a scalar at the top", h.bplist([[0x10, 2]])),
            ("the top object past the objects", h.bplist([[0xD0]], top: 3)),
            ("three-byte offsets", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x10, 2]], offsetSize: 3)),
            ("two-byte references", h.bplist([[0xD1, 0, 1, 0, 2], [0x51, 0x6B], [0x10, 2]], refSize: 2)),
            ("two-byte offsets", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x10, 2]], offsetSize: 2)),
            ("four-byte offsets", h.bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x10, 2]], offsetSize: 4)),
            ("an empty key", h.bplist([[0xD1, 1, 2], [0x50], [0x10, 2]])),
        ]
        for (label, data) in crafted { run(data, label) }
        for (label, data) in HostilePropertyLists.cases where data.starts(with: Array("bplist".utf8)) { run(data, label) }
        #expect(mismatches == 0)
        #expect(inputs > 20_000 && decided > 1_000, "\(inputs) inputs, \(decided) decided by the plain check")
        report("plain-entries check: \(inputs) binary inputs, \(decided) decided by it, \(mismatches) disagreeing with the general check")
    }
}
