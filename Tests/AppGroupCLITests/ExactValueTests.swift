import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing

/// Values that must reach a suite exactly or not at all (issue 23, B7 and B8),
/// through the built `appgroup`: U+FEFF in keys, integers between 2^63 and 2^64
/// (which binary property lists hold in their 16-byte form), -0.0, NaN, infinities,
/// reals that a decimal text cannot reach; and `export` then `import`, which must
/// give back the suite it exported, whatever the package can write into one.
@Suite struct ExactValueTests {
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

    // MARK: B7: U+FEFF

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
}
