import AppGroupContainer
import AppGroupTesting
import Foundation
import PropertyLists
import SharedDefaults
import Testing
import TestSupport

/// Values that must reach a suite exactly or not at all,
/// through the built `appgroup`: U+FEFF in keys, integers between 2^63 and 2^64
/// (which binary property lists hold in their 16-byte form), -0.0, NaN, infinities,
/// reals that a decimal text cannot reach; and `export` then `import`, which must
/// give back the suite it exported, whatever the package can write into one.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ExactValueTests {
    let group = CLIFixture.group

    func write(_ fixture: CLIFixture, _ text: String, _ name: String) throws -> URL {
        let url = fixture.device.scratch.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The suite `suite` exported by the tool, read back by the codec.
    func exported(_ fixture: CLIFixture, suite: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> PropertyListTree {
        let file = fixture.device.scratch.appendingPathComponent("export-\(UUID().uuidString).plist")
        try fixture.succeed(["defaults", "export", group] + (suite.map { ["--suite", $0] } ?? []) + [file.path], sourceLocation: sourceLocation)
        return try PropertyListCodec.read(Data(contentsOf: file))
    }

    // MARK: U+FEFF

    @Test("import, export and plist --convert keep \"\\u{FEFF}k\" and \"k\" as two keys, from &#xFEFF; and from the character")
    func byteOrderMarkKeysStayTwoKeys() throws {
        let fixture = try CLIFixture()
        let file = try write(fixture, """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>&#xFEFF;k</key><string>by reference</string>
            <key>k</key><string>plain</string>
            <key>\u{FEFF}</key><string>\u{FEFF}only</string>
            </dict></plist>
            """, "bom.plist")
        try fixture.succeed(["defaults", "import", group, file.path])
        let defaults = try fixture.appDefaults()
        #expect(try defaults.storedKeys().count == 3)
        #expect(try defaults.load(forKey: "\u{FEFF}k") as? String == "by reference")
        #expect(try defaults.load(forKey: "k") as? String == "plain")
        #expect((try defaults.load(forKey: "\u{FEFF}") as? String).map { Array($0.unicodeScalars) } == Array("\u{FEFF}only".unicodeScalars))
        let tree = try exported(fixture)
        #expect(tree == (try PropertyListCodec.read(Data(contentsOf: file))), "export gives back what was imported")

        let converted = fixture.device.scratch.appendingPathComponent("bom.bin")
        try fixture.succeed(["plist", file.path, "--convert", "binary1", "--output", converted.path])
        try fixture.succeed(["plist", converted.path, "--convert", "xml1"])
        guard case .dictionary(let back) = try PropertyListCodec.read(Data(contentsOf: converted)) else {
            Issue.record("not a dictionary")
            return
        }
        #expect(back.count == 3 && back["\u{FEFF}k"] == .string("by reference") && back["k"] == .string("plain"))
    }

    @Test("defaults write refuses what it could only store changed: an argument that is not UTF-8, and two spellings of one key in -dict or an old-style dictionary")
    func writeRefusesWhatItWouldChange() throws {
        let fixture = try CLIFixture()
        // Swift's CommandLine.arguments would turn the byte 0xFF into U+FFFD.
        let invalid = try fixture.bash(#""$APPGROUP" defaults write "$1" "$(printf 'k\377')" v"#, [group])
        #expect(invalid.status == 64 && invalid.standardError.contains("not valid UTF-8"), "\(invalid.status) \(invalid.standardError)")
        try fixture.fail(["defaults", "write", group, "d", "-dict", "caf\u{E9}", "1", "cafe\u{301}", "2"], status: 65, ["Unicode normalization"])
        try fixture.fail(["defaults", "write", group, "d", #"{ "caf\U00e9" = a; "cafe\U0301" = b; }"#], status: 65, ["Unicode normalization"])
        #expect(try fixture.appDefaults().storedKeys().isEmpty, "nothing was written")
        // A character beyond U+FFFF is two \U escapes (UTF-16), as in Apple's format.
        try fixture.succeed(["defaults", "write", group, "emoji", #"( "\UD83D\UDE00" )"#])
        #expect(try fixture.appDefaults().load(forKey: "emoji") as? [String] == ["\u{1F600}"])
        try fixture.fail(["defaults", "write", group, "half", #"( "\UD83D" )"#], status: 65, ["surrogate"])
    }

    // MARK: Numbers

    @Test("import stores integers above Int64.max as integers (2^64-1 stays 18446744073709551615), and -0.0, NaN and infinities bit for bit")
    func importKeepsEveryNumber() throws {
        let fixture = try CLIFixture()
        let file = try write(fixture, """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>max</key><integer>18446744073709551615</integer>
            <key>above</key><integer>9223372036854775808</integer>
            <key>hex</key><integer>0xFFFFFFFFFFFFFFFF</integer>
            <key>min</key><integer>-9223372036854775808</integer>
            <key>negativeHexMin</key><integer>-0x8000000000000000</integer>
            <key>negativeZero</key><real>-0.0</real>
            <key>nan</key><real>nan</real>
            <key>infinity</key><real>+infinity</real>
            <key>negativeInfinity</key><real>-infinity</real>
            <key>tiny</key><real>4.9406564584124654e-324</real>
            <key>nested</key><array><integer>18446744073709551615</integer><dict><key>u</key><integer>9223372036854775809</integer></dict></array>
            </dict></plist>
            """, "numbers.plist")
        try fixture.succeed(["defaults", "import", group, file.path])
        let tree = try exported(fixture)
        #expect(tree == (try PropertyListCodec.read(Data(contentsOf: file))), "\(tree)")
        guard case .dictionary(let suite) = tree else { return }
        #expect(suite["max"] == .integer(.unsigned(UInt64.max)))
        #expect(suite["negativeHexMin"] == .integer(.signed(Int64.min)))
        if case .real(let zero)? = suite["negativeZero"] { #expect(zero.bitPattern == (-0.0 as Double).bitPattern) }
        #expect(try fixture.succeed(["defaults", "read-type", group, "max"]) == "Type is integer\n")
        #expect(try fixture.succeed(["defaults", "read", group, "max"]) == "18446744073709551615\n")
        #expect(try fixture.succeed(["defaults", "read", group, "above"]) == "9223372036854775808\n")
        // The app reads the exact value, as Apple's NSNumber gives it (`as? UInt64`).
        let defaults = try fixture.appDefaults()
        #expect(defaults.object(forKey: "max") as? UInt64 == UInt64.max)
        let resolver = fixture.device.resolver(for: fixture.notes.app)
        #expect(UserDefaults(suiteName: group, resolver: resolver)?.object(forKey: "max") as? UInt64 == UInt64.max)
    }

    @Test("defaults write -int takes every integer a property list holds (Int64.min to UInt64.max) exactly; beyond, and -float past a real's range, fail with exit 65")
    func writeStoresExactlyOrRefuses() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "max", "-int", "18446744073709551615"])
        try fixture.succeed(["defaults", "write", group, "min", "-int", "-9223372036854775808"])
        try fixture.succeed(["defaults", "write", group, "zero", "-float", "-0"])
        try fixture.succeed(["defaults", "write", group, "list", "-array", "-int", "9223372036854775808", "-float", "-0.0"])
        guard case .dictionary(let suite) = try exported(fixture) else { return }
        #expect(suite["max"] == .integer(.unsigned(UInt64.max)))
        #expect(suite["min"] == .integer(.signed(Int64.min)))
        #expect(suite["zero"].map { if case .real(let r) = $0 { return r.bitPattern == (-0.0 as Double).bitPattern } else { return false } } == true)
        #expect(suite["list"] == .array([.integer(.unsigned(1 << 63)), .real(-0.0)]))
        try fixture.fail(["defaults", "write", group, "over", "-int", "18446744073709551616"], status: 65, ["18446744073709551616", "-int", "18446744073709551615"])
        try fixture.fail(["defaults", "write", group, "under", "-int", "-9223372036854775809"], status: 65, ["-9223372036854775809", "-9223372036854775808"])
        try fixture.fail(["defaults", "write", group, "huge", "-float", "1e400"], status: 65, ["1e400", "-float"])
        try fixture.fail(["defaults", "write", group, "small", "-float", "1e-400"], status: 65, ["1e-400", "-float"])
        try fixture.fail(["defaults", "write", group, "nan", "-float", "nan"], status: 65, ["nan", "-float"])
        guard case .dictionary(let after) = try exported(fixture) else { return }
        #expect(after.count == 4, "a refused value writes nothing: \(after.keys)")
    }

    @Test("import refuses a real whose text is beyond a 64-bit real's range (it would be read as an infinity or zero), naming it; the suite is untouched")
    func importRefusesRealsItCannotHold() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("kept", forKey: "before")
        for (text, name) in [("1e400", "huge"), ("-1e400", "negativeHuge"), ("1e-400", "small")] {
            let file = try write(fixture, "<plist version=\"1.0\"><dict><key>k</key><real>\(text)</real></dict></plist>", "\(name).plist")
            try fixture.fail(["defaults", "import", group, file.path], status: 65, [text, "real"])
        }
        #expect(try fixture.appDefaults().storedKeys() == ["before"])
    }

    @Test("rename, -array-add and -dict-add change only what they say: the rest of the stored value keeps its exact keys, integers and bits")
    func editsKeepTheRestExactly() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("made", forKey: "placeholder")
        var twins = PropertyListDictionary()
        twins.set(.integer(.unsigned(UInt64.max)), forKey: "caf\u{E9}")
        twins.set(.real(-0.0), forKey: "cafe\u{301}")
        var suite = PropertyListDictionary()
        suite.set(.dictionary(twins), forKey: "value")
        suite.set(.array([.dictionary(twins)]), forKey: "list")
        try AtomicFile.write(PropertyListCodec.write(.dictionary(suite), format: .binary), to: fixture.suiteFile, below: .marked(above: fixture.suiteFile))

        try fixture.succeed(["defaults", "rename", group, "value", "moved"])
        try fixture.succeed(["defaults", "write", group, "list", "-array-add", "x"])
        try fixture.succeed(["defaults", "write", group, "moved", "-dict-add", "caf\u{E9}", "-int", "2", "new", "n"])
        guard case .dictionary(let after) = try exported(fixture) else { return }
        #expect(after["value"] == nil)
        #expect(after["list"] == .array([.dictionary(twins), .string("x")]))
        var expected = twins
        expected.set(.integer(.signed(2)), forKey: "caf\u{E9}") // that exact spelling only
        expected.set(.string("n"), forKey: "new")
        #expect(after["moved"] == .dictionary(expected), "\(String(describing: after["moved"]))")
    }

    // MARK: Export then import, a property test

    /// A seeded value of any kind a suite can hold, numbers at their edges included.
    static func value(_ rng: inout SeededGenerator, depth: Int) -> PropertyListTree {
        let integers: [PropertyListInteger] = [.signed(0), .signed(-1), .signed(Int64.min), .signed(Int64.max),
                                               .unsigned(UInt64(Int64.max) + 1), .unsigned(UInt64.max), .unsigned(UInt64.max - 1)]
        let reals: [Double] = [0, -0.0, .nan, -.nan, Double(bitPattern: 0x7FF0_0000_0000_0001), .infinity, -.infinity,
                               .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, Double(bitPattern: 0x0000_1000_0000_0000), 0.1, 0x1p53]
        switch Int.random(in: 0..<(depth > 2 ? 7 : 9), using: &rng) {
        case 0:
            return .integer(Bool.random(using: &rng) ? integers.randomElement(using: &rng)!
                                                     : PropertyListInteger(UInt64.random(in: 0...UInt64.max, using: &rng)))
        case 1:
            return .integer(.signed(Int64.random(in: Int64.min...Int64.max, using: &rng)))
        case 2:
            return .real(Bool.random(using: &rng) ? reals.randomElement(using: &rng)! : Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        case 3: return .bool(Bool.random(using: &rng))
        case 4: return .date(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        case 5: return .data(Data((0..<Int.random(in: 0...9, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 6:
            let strings = ["", "\u{FEFF}", "\u{FEFF}k", "k", "caf\u{E9}", "cafe\u{301}", "a\r\nb", "\u{1F600}"]
            return .string(strings.randomElement(using: &rng)!)
        case 7: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            var dictionary = PropertyListDictionary()
            for key in ["caf\u{E9}", "cafe\u{301}", "\u{FEFF}k", "k", "n"].shuffled(using: &rng).prefix(Int.random(in: 0...5, using: &rng)) {
                dictionary.set(value(&rng, depth: depth + 1), forKey: key)
            }
            return .dictionary(dictionary)
        }
    }

    @Test("export then import is the identity: 3 seeded suites of 300 values each (numbers at every edge, nested, twin and U+FEFF keys), exported, imported into another suite, exported again")
    func exportThenImportIsTheIdentity() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("made", forKey: "placeholder") // the suite's directory
        for seed in [UInt64(8), 80, 800] {
            var rng = SeededGenerator(seed: seed)
            var suite = PropertyListDictionary()
            for index in 0..<300 { suite.set(Self.value(&rng, depth: 0), forKey: index % 7 == 0 ? "\u{FEFF}key\(index)" : "key\(index)") }
            let original = PropertyListTree.dictionary(suite)
            // Written as another process of the device would write it (any property list the package writes).
            try AtomicFile.write(PropertyListCodec.write(original, format: .binary), to: fixture.suiteFile, below: .marked(above: fixture.suiteFile))
            let first = try exported(fixture)
            #expect(first == original, "seed \(seed): export")
            let file = fixture.device.scratch.appendingPathComponent("seed-\(seed).plist")
            try PropertyListCodec.write(first, format: .binary).write(to: file)
            try fixture.succeed(["defaults", "import", group, "--suite", "copy", file.path])
            let second = try exported(fixture, suite: "copy")
            #expect(second == original, "seed \(seed): export, import, export")
            if second != original, case .dictionary(let a) = second {
                for (key, value) in suite where a[key] != value {
                    Issue.record("seed \(seed): \(key) was \(value), came back \(String(describing: a[key]))")
                    break
                }
            }
        }
    }
}
