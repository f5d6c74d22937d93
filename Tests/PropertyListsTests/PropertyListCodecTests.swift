import Foundation
import PropertyLists
import Testing
import TestSupport

/// The package's property-list codec against Foundation's and Python's plistlib,
/// in both directions, on seeded generated values of every type.
@Suite("Property-list codec round trips", .dedicatedThreads)
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
    static let reals: [Double] = [0, -0.0, 1.5, -2.25e-300, 1e308, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .pi,
                                  .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude]
    /// Seconds since 2001: the years 1 and 9999 (ends of what ISO 8601 dates hold), ±1e12 s.
    static let dates: [Double] = [0, -1e12, 1e12, 0.5, -978_307_200, 1_700_000_000.25, -63_113_904_000, 252_423_993_599]
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
            // Python's datetime holds the years 1 to 9999; its XML writer pads years to four digits from 1000.
            if options.pythonDates { return .date(Double(Int64.random(in: -31_588_531_200...252_423_993_599, using: &rng))) }
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

    // MARK: Exact comparison

    /// Equal with nothing merged: strings and keys by their exact code units, reals
    /// and dates by their bits (a NaN only equals a NaN of the same bits), integers
    /// by value and signedness class. Dictionaries compare as sets of entries.
    /// With `zeroSign` false, 0.0 and -0.0 count as equal (and nothing else does).
    static func same(_ a: PropertyListTree, _ b: PropertyListTree, zeroSign: Bool = true) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)): return x.bitPattern == y.bitPattern || (!zeroSign && x == 0 && y == 0)
        case let (.date(x), .date(y)): return x.bitPattern == y.bitPattern
        case let (.bool(x), .bool(y)): return x == y
        case let (.data(x), .data(y)): return x == y
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1, zeroSign: zeroSign) }
        case let (.dictionary(x), .dictionary(y)):
            guard x.count == y.count else { return false }
            return x.allSatisfy { entry in y[entry.key].map { same(entry.value, $0, zeroSign: zeroSign) } ?? false }
        default: return false
        }
    }

    /// A Foundation property-list object holding `tree`, built by hand (not by the
    /// package): NSNumber for numbers (UInt64 for the unsigned range), Bool, Date, Data.
    static func foundationObject(_ tree: PropertyListTree) -> Any {
        switch tree {
        case .string(let s): return s
        case .integer(.signed(let v)): return NSNumber(value: v)
        case .integer(.unsigned(let v)): return NSNumber(value: v)
        case .real(let r): return NSNumber(value: r)
        case .bool(let b): return b
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d)
        case .data(let d): return d
        case .array(let items): return items.map(foundationObject)
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for (key, value) in d { out[key] = foundationObject(value) }
            return out
        }
    }

    /// What Foundation parsed, as a tree, by the exact type Foundation gave each
    /// value; nil for anything a property list cannot hold.
    static func tree(fromFoundation value: Any) -> PropertyListTree? {
        switch value {
        case let v as String: return .string(v)
        case let v as Data: return .data(v)
        case let v as Date: return .date(v.timeIntervalSinceReferenceDate)
        case let v as [Any]:
            var items: [PropertyListTree] = []
            for element in v {
                guard let item = tree(fromFoundation: element) else { return nil }
                items.append(item)
            }
            return .array(items)
        case let v as [String: Any]:
            var d = PropertyListDictionary()
            for (key, element) in v {
                guard let item = tree(fromFoundation: element) else { return nil }
                d.set(item, forKey: key)
            }
            return .dictionary(d)
        default: break
        }
        if type(of: value) == Bool.self, let b = value as? Bool { return .bool(b) }
        guard let n = value as? NSNumber else { return nil }
        if type(of: value) == Int.self || type(of: value) == Int64.self { return .integer(.signed(n.int64Value)) }
        if type(of: value) == UInt64.self || type(of: value) == UInt.self { return .integer(PropertyListInteger(n.uint64Value)) }
        if type(of: value) == Double.self || type(of: value) == Float.self { return .real(n.doubleValue) }
        switch String(cString: n.objCType) {
        case "c", "B": return .bool(n.boolValue)
        case "f", "d": return .real(n.doubleValue)
        case "Q", "L", "I", "S", "C": return .integer(PropertyListInteger(n.uint64Value))
        default: return .integer(.signed(n.int64Value))
        }
    }

    // MARK: Round trips

    @Test("the codec reads back exactly what it writes, binary and XML (2,000 seeded values each)")
    func selfRoundTrip() throws {
        for (i, tree) in Self.samples(2_000, seed: 11, Options()).enumerated() {
            let back = try PropertyListCodec.read(PropertyListCodec.write(tree, format: .binary))
            #expect(Self.same(back, tree), "binary, value \(i)")
        }
        for (i, tree) in Self.samples(2_000, seed: 12, Options(wholeSeconds: true)).enumerated() {
            let back = try PropertyListCodec.read(PropertyListCodec.write(tree, format: .xml))
            #expect(Self.same(back, tree), "XML, value \(i)")
        }
    }

    @Test("Foundation's PropertyListSerialization reads exactly what the codec writes, and the codec exactly what Foundation writes (2,000 seeded values, binary and XML)")
    func foundationBothWays() throws {
        // Foundation merges keys that differ only in normalization, so no twins here
        // (Python's plistlib keeps them: see pythonBothWays). XML dates are whole seconds.
        let options = Options(twins: false, wholeSeconds: true)
        var checked = 0
        for (i, tree) in Self.samples(2_000, seed: 21, options).enumerated() {
            for format in [PropertyListCodec.Format.binary, .xml] {
                let bytes = try PropertyListCodec.write(tree, format: format)
                guard let parsed = try? PropertyListSerialization.propertyList(from: bytes, format: nil) else {
                    Issue.record("Foundation cannot read the codec's \(format) of value \(i): \(bytes.base64EncodedString())")
                    continue
                }
                let foundation = Self.tree(fromFoundation: parsed)
                #expect(foundation.map { Self.same($0, tree) } == true, "Foundation reading the codec's \(format), value \(i): \(String(describing: foundation)) for \(tree)")
                checked += 1
            }
            let object = Self.foundationObject(tree)
            for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
                let data: Data
                do {
                    data = try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
                } catch {
                    Issue.record("Foundation cannot write value \(i) as \(format): \(error)")
                    continue
                }
                let mine = try PropertyListCodec.read(data)
                // Foundation's writer does not keep the sign of a zero real reliably
                // (-0.0 comes out as 0.0 in some files, kept in others: CFNumber calls
                // the two equal); everything else must come back bit for bit.
                #expect(Self.same(mine, tree, zeroSign: false), "the codec reading Foundation's \(format), value \(i): \(Self.describe(mine)) for \(Self.describe(tree))")
                checked += 1
            }
        }
        #expect(checked == 8_000)
    }

    /// A description of a value both Swift and Python can print identically: keys
    /// sorted by their UTF-8 bytes, strings and data in hex, reals by their bits.
    static func describe(_ tree: PropertyListTree) -> String {
        func hex<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 { bytes.map { String(format: "%02x", $0) }.joined() }
        switch tree {
        case .string(let s): return "s" + hex(s.utf8)
        case .integer(.signed(let v)): return "i\(v)"
        case .integer(.unsigned(let v)): return "i\(v)"
        case .real(let r): return "r" + String(format: "%016llx", r.bitPattern)
        case .date(let d): return "t\(Int64(d))"
        case .bool(let b): return b ? "b1" : "b0"
        case .data(let d): return "d" + hex(d)
        case .array(let items): return "[" + items.map(describe).joined(separator: ",") + "]"
        case .dictionary(let d):
            let entries = d.map { (hex($0.key.utf8), describe($0.value)) }.sorted { $0.0 < $1.0 }
            return "{" + entries.map { $0.0 + ":" + $0.1 }.joined(separator: ",") + "}"
        }
    }

    @Test("Python's plistlib reads exactly what the codec writes, and the codec exactly what plistlib writes (2,000 seeded values, binary and XML, twin keys included)", .tags(.multiprocess, .python))
    func pythonBothWays() throws {
        let options = Options(pythonDates: true, controls: false, negativeZero: false)
        let trees = Self.samples(2_000, seed: 31, options)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (i, tree) in trees.enumerated() {
            try PropertyListCodec.write(tree, format: .binary).write(to: directory.appendingPathComponent("\(i).bin"))
            try PropertyListCodec.write(tree, format: .xml).write(to: directory.appendingPathComponent("\(i).xml"))
        }
        // One Python process for the batch: it describes each value it read (the
        // codec -> plistlib direction) and writes it again in both formats (plistlib
        // -> the codec).
        let script = """
        import plistlib, sys, os, struct, datetime
        d, n = sys.argv[1], int(sys.argv[2])
        epoch = datetime.datetime(2001, 1, 1)
        def describe(v):
            if isinstance(v, bool): return "b1" if v else "b0"
            if isinstance(v, int): return "i%d" % v
            if isinstance(v, float): return "r" + struct.pack(">d", v).hex()
            if isinstance(v, str): return "s" + v.encode("utf-8", "surrogatepass").hex()
            if isinstance(v, bytes): return "d" + v.hex()
            if isinstance(v, datetime.datetime):
                delta = v.replace(tzinfo=None) - epoch
                return "t%d" % (delta.days * 86400 + delta.seconds)
            if isinstance(v, list): return "[" + ",".join(describe(x) for x in v) + "]"
            if isinstance(v, dict):
                entries = sorted((k.encode("utf-8", "surrogatepass").hex(), describe(x)) for k, x in v.items())
                return "{" + ",".join(k + ":" + x for k, x in entries) + "}"
            raise TypeError(type(v))
        with open(os.path.join(d, "described.txt"), "w") as out:
            for i in range(n):
                for source in ("bin", "xml"):
                    with open(os.path.join(d, "%d.%s" % (i, source)), "rb") as f:
                        value = plistlib.load(f)
                    out.write("%d %s %s\\n" % (i, source, describe(value)))
                    for fmt, ext in ((plistlib.FMT_BINARY, "bin"), (plistlib.FMT_XML, "xml")):
                        with open(os.path.join(d, "%d.%s.py.%s" % (i, source, ext)), "wb") as f:
                            plistlib.dump(value, f, fmt=fmt, sort_keys=False)
        """
        let python = try runPython(script, [directory.path, String(trees.count)])
        try #require(python.status == 0, "python3: \(python.standardError)")
        let described = try String(contentsOf: directory.appendingPathComponent("described.txt"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ", maxSplits: 2).map(String.init) }
        try #require(described.count == 2 * trees.count)
        for line in described {
            guard line.count == 3, let i = Int(line[0]) else { Issue.record("a malformed line from Python: \(line)"); continue }
            #expect(line[2] == Self.describe(trees[i]), "plistlib reading the codec's \(line[1]) of value \(i)")
        }
        for (i, tree) in trees.enumerated() {
            for name in ["bin.py.bin", "bin.py.xml", "xml.py.bin", "xml.py.xml"] {
                let data = try Data(contentsOf: directory.appendingPathComponent("\(i).\(name)"))
                #expect(Self.same(try PropertyListCodec.read(data), tree), "value \(i) written by plistlib (\(name))")
            }
        }
    }

    @Test("offset and reference tables of every width (1, 2, 4, 8 bytes) are read; UTF-16 strings and 16-byte integers too")
    func everyWidth() throws {
        func be(_ value: UInt64, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
        }
        var expectedInner = PropertyListDictionary()
        expectedInner.set(.array([.integer(.signed(1)), .string("\u{E9}\u{1F600}")]), forKey: "a")
        expectedInner.set(.integer(.unsigned(UInt64.max)), forKey: "b")
        let expected = PropertyListTree.dictionary(expectedInner)
        for refSize in [1, 2, 4, 8] {
            for offsetSize in [1, 2, 4, 8] {
                let objects: [[UInt8]] = [
                    [0xD2] + be(1, refSize) + be(2, refSize) + be(3, refSize) + be(4, refSize),
                    [0x51, 0x61], [0x51, 0x62],
                    [0xA2] + be(5, refSize) + be(6, refSize),
                    [0x14] + be(0, 8) + be(UInt64.max, 8),
                    [0x10, 0x01],
                    [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00], // "é😀" in UTF-16, a surrogate pair
                ]
                // Each object's offset is 8 (the header) plus the sizes of those before it.
                let offsets = objects.indices.map { k in 8 + objects[..<k].reduce(0) { $0 + $1.count } }
                let table = 8 + objects.reduce(0) { $0 + $1.count }
                let trailer = [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)] + be(UInt64(objects.count), 8) + be(0, 8) + be(UInt64(table), 8)
                let bytes = Array("bplist00".utf8) + objects.joined() + offsets.flatMap { be(UInt64($0), offsetSize) } + trailer
                let read = try PropertyListCodec.read(Data(bytes))
                #expect(Self.same(read, expected), "references of \(refSize) bytes, offsets of \(offsetSize): \(read)")
                // Foundation reads the same file the same way.
                let foundation = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
                #expect(Self.tree(fromFoundation: foundation).map { Self.same($0, expected) } == true, "Foundation, \(refSize)/\(offsetSize)")
            }
        }
        // The writer picks 2-byte references past 255 objects and 2-byte offsets past 255 bytes.
        let wide = PropertyListTree.array((0..<300).map { .integer(.signed(Int64($0) * 1_000)) })
        let data = try PropertyListCodec.write(wide, format: .binary)
        #expect(data[data.count - 26] == 2 && data[data.count - 25] == 2, "offset and reference sizes in the trailer")
        #expect(Self.same(try PropertyListCodec.read(data), wide))
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
