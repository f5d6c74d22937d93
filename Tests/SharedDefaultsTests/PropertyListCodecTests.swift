import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
@testable import SharedDefaults

/// The package's property-list codec against Foundation's and Python's plistlib,
/// in both directions, on seeded generated values of every type.
@Suite("Property-list codec round trips")
struct PropertyListCodecTests {
    struct Options {
        /// Keys that differ only in Unicode normalization (Foundation merges them).
        var twins = true
        /// Dates as Python's datetime holds them exactly: whole seconds, years 1902 to 2100.
        var pythonDates = false
        /// Dates in whole seconds (the XML format has none finer).
        var wholeSeconds = false
        /// Control characters in strings (XML 1.0 cannot hold them; Python refuses them).
        var controls = true
        /// Integers above Int64.max.
        var bigUnsigned = true
        /// -0.0 (Python's binary writer stores equal scalars once and 0.0 == -0.0 in Python).
        var negativeZero = true
    }

    static let integers: [PropertyListInteger] = [
        .signed(0), .signed(1), .signed(255), .signed(256), .signed(65535), .signed(65536), .signed(4_294_967_295),
        .signed(4_294_967_296), .signed(-1), .signed(-256), .signed(Int64.min), .signed(Int64.max),
        .unsigned(UInt64(Int64.max) + 1), .unsigned(UInt64.max),
    ]
    static let reals: [Double] = [0, -0.0, 1.5, -2.25e-300, 1e308, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .pi]
    static let dates: [Double] = [0, -1e12, 1e12, 0.5, -978_307_200, 1_700_000_000.25]
    static let strings = ["", "a", "hello world", "exactly fifteen", "caf\u{E9}", "cafe\u{301}", "\u{1F600} emoji", "日本語のテキスト",
                          "tab\tnewline\n", "<&>\"'", String(repeating: "x", count: 300), "\u{10FFFF}"]

    static func string(_ rng: inout SeededGenerator, _ options: Options) -> String {
        if Int.random(in: 0..<3, using: &rng) == 0 {
            let s = strings.randomElement(using: &rng)!
            return options.twins || s != "cafe\u{301}" ? s : "cafe"
        }
        let pools: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x2FF, 0x300...0x36F, 0x4E00...0x4FFF, 0x1F300...0x1F64F,
                                            options.controls ? 0x01...0x1F : 0x20...0x7E]
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...20, using: &rng) {
            let pool = pools.randomElement(using: &rng)!
            if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &rng)) {
                if !options.controls, scalar == "\r" { continue }
                s.append(scalar)
            }
        }
        return String(s)
    }

    static func value(_ rng: inout SeededGenerator, depth: Int, _ options: Options) -> PropertyListTree {
        let kinds = depth >= 4 ? 7 : 9
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .string(string(&rng, options))
        case 1:
            let pick = Int.random(in: 0..<3, using: &rng) == 0
                ? .signed(Int64.random(in: Int64.min...Int64.max, using: &rng))
                : integers.randomElement(using: &rng)!
            if case .unsigned = pick, !options.bigUnsigned { return .integer(.signed(42)) }
            return .integer(pick)
        case 2:
            let r = Int.random(in: 0..<2, using: &rng) == 0 ? reals.randomElement(using: &rng)! : Double.random(in: -1e9...1e9, using: &rng)
            return .real(!options.negativeZero && r == 0 ? 0 : r)
        case 3: return .bool(Bool.random(using: &rng))
        case 4:
            if options.pythonDates { return .date(Double(Int64.random(in: -3_124_137_600...3_155_760_000, using: &rng))) }
            let d = Int.random(in: 0..<2, using: &rng) == 0 ? dates.randomElement(using: &rng)! : Double.random(in: -1e10...1e10, using: &rng)
            return .date(options.wholeSeconds ? d.rounded(.down) : d)
        case 5: return .data(Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 6: return .string(string(&rng, options))
        case 7: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in value(&rng, depth: depth + 1, options) })
        default: return .dictionary(dictionary(&rng, depth: depth, options))
        }
    }

    static func dictionary(_ rng: inout SeededGenerator, depth: Int, _ options: Options) -> PropertyListDictionary {
        var d = PropertyListDictionary()
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            d.set(value(&rng, depth: depth + 1, options), forKey: string(&rng, options))
        }
        if options.twins, Int.random(in: 0..<3, using: &rng) == 0 {
            d.set(.string("composed"), forKey: "k\u{E9}y")
            d.set(.string("decomposed"), forKey: "ke\u{301}y")
        }
        return d
    }

    /// Trees whose root is a dictionary (half) or any value.
    static func samples(_ count: Int, seed: UInt64, _ options: Options) -> [PropertyListTree] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { i in i % 2 == 0 ? .dictionary(dictionary(&rng, depth: 0, options)) : value(&rng, depth: 0, options) }
    }

    @Test("the codec reads back what it writes, binary and XML, keys exact (400 seeded values)")
    func selfRoundTrip() throws {
        for (i, tree) in Self.samples(400, seed: 11, Options()).enumerated() {
            #expect(try PropertyListCodec.read(PropertyListCodec.write(tree, format: .binary)) == tree, "binary, value \(i)")
        }
        for (i, tree) in Self.samples(400, seed: 12, Options(wholeSeconds: true)).enumerated() {
            #expect(try PropertyListCodec.read(PropertyListCodec.write(tree, format: .xml)) == tree, "XML, value \(i)")
        }
    }

    @Test("Foundation reads what the codec writes, and the codec reads what Foundation writes (400 seeded values, both formats)")
    func foundationBothWays() throws {
        let options = Options(twins: false, wholeSeconds: true)
        for (i, tree) in Self.samples(400, seed: 21, options).enumerated() {
            let expected = CanonicalTree.value(tree)
            for format in [PropertyListCodec.Format.binary, .xml] {
                let bytes = try PropertyListCodec.write(tree, format: format)
                guard let parsed = try? PropertyListSerialization.propertyList(from: bytes, format: nil) else {
                    Issue.record("Foundation cannot read the codec's \(format) of value \(i): \(bytes.base64EncodedString()) \(tree)")
                    continue
                }
                let foundation = PropertyListValue.normalizeParsed(parsed)
                #expect(PropertyListValue.equal(foundation, expected), "Foundation reading the codec's \(format), value \(i)")
            }
            for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
                guard let data = try? PropertyListSerialization.data(fromPropertyList: expected, format: format, options: 0) else { continue }
                let mine = CanonicalTree.value(try PropertyListCodec.read(data))
                #expect(PropertyListValue.equal(mine, expected), "the codec reading Foundation's \(format), value \(i)")
            }
        }
    }

    @Test("Python's plistlib reads what the codec writes and writes what the codec reads, exactly (300 seeded values, binary and XML)")
    func pythonBothWays() throws {
        let options = Options(pythonDates: true, controls: false, negativeZero: false)
        let trees = Self.samples(300, seed: 31, options)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (i, tree) in trees.enumerated() {
            try PropertyListCodec.write(tree, format: .binary).write(to: directory.appendingPathComponent("\(i).bin"))
            try PropertyListCodec.write(tree, format: .xml).write(to: directory.appendingPathComponent("\(i).xml"))
        }
        // Python reads each of the codec's files and writes it again in both formats.
        let script = """
        import plistlib, sys, os
        d, n = sys.argv[1], int(sys.argv[2])
        for i in range(n):
            for source in ("bin", "xml"):
                with open(os.path.join(d, "%d.%s" % (i, source)), "rb") as f:
                    value = plistlib.load(f)
                for fmt, ext in ((plistlib.FMT_BINARY, "bin"), (plistlib.FMT_XML, "xml")):
                    with open(os.path.join(d, "%d.%s.py.%s" % (i, source, ext)), "wb") as f:
                        plistlib.dump(value, f, fmt=fmt, sort_keys=False)
        """
        let python = try LaunchedProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, directory.path, String(trees.count)])
        try #require(python.status == 0, "python3: \(python.standardError)")
        for (i, tree) in trees.enumerated() {
            for name in ["bin.py.bin", "bin.py.xml", "xml.py.bin", "xml.py.xml"] {
                let data = try Data(contentsOf: directory.appendingPathComponent("\(i).\(name)"))
                #expect(try PropertyListCodec.read(data) == tree, "value \(i) through Python (\(name))")
            }
        }
    }

    @Test("the binary writer stores equal strings and keys once, and two spellings of a key twice")
    func deduplication() throws {
        var inner = PropertyListDictionary()
        inner.set(.string("shared value"), forKey: "shared key")
        var root = PropertyListDictionary()
        root.set(.array([.dictionary(inner), .dictionary(inner), .string("shared value")]), forKey: "list")
        root.set(.integer(.signed(1)), forKey: "caf\u{E9}")
        root.set(.integer(.signed(2)), forKey: "cafe\u{301}")
        let data = try PropertyListCodec.write(.dictionary(root), format: .binary)
        let bytes = [UInt8](data)
        func occurrences(_ s: String) -> Int {
            let needle = [UInt8](s.utf8)
            return (0...(bytes.count - needle.count)).filter { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }.count
        }
        #expect(occurrences("shared value") == 1)
        #expect(occurrences("shared key") == 1)
        // Object count in the trailer: root, list, 2 dictionaries, 5 distinct scalars, 4 keys... each string once.
        let read = try PropertyListCodec.read(data)
        #expect(read == .dictionary(root))
        guard case .dictionary(let back) = read else { return }
        #expect(back.count == 3)
    }
}
