import AppGroupContainer
import AppGroupTesting
import Foundation
import PropertyLists
import SharedDefaults
import Testing
import TestSupport

/// `defaults export` / `import` (fixtures and snapshots), `read-type`, `rename`,
/// `find` and old-style untyped values, through the built binary; every result is
/// checked as the Notes app reads the suite.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct SnapshotTests {
    let group = CLIFixture.group

    @Test func exportWritesBinaryAndImportRestoresItExactly() throws {
        let fixture = try CLIFixture()
        let defaults = try fixture.appDefaults()
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        try defaults.save("caf\u{E9}", forKey: "name")
        try defaults.save(Data([0, 1, 2, 255]), forKey: "blob")
        try defaults.save(date, forKey: "when")
        try defaults.save(["a": [1, 2], "b": true] as [String: Any], forKey: "nested")
        // Two spellings of one word: two keys, as on Apple's platforms.
        try defaults.save(1, forKey: "caf\u{E9}")
        try defaults.save(2, forKey: "cafe\u{301}")
        let snapshot = fixture.device.scratch.appendingPathComponent("snapshot.plist")
        try fixture.succeed(["defaults", "export", group, snapshot.path])
        let bytes = try Data(contentsOf: snapshot)
        #expect(bytes.starts(with: Array("bplist00".utf8)), "export writes a binary property list")

        try fixture.succeed(["defaults", "delete", group])
        try defaults.save("added after the snapshot", forKey: "later")
        try fixture.succeed(["defaults", "import", group, snapshot.path])
        let reread = try fixture.appDefaults()
        #expect(try reread.storedKeys().count == 6, "import replaces the suite: 'later' is gone")
        #expect(reread.object(forKey: "later") == nil)
        #expect(reread.object(forKey: "name") as? String == "caf\u{E9}")
        #expect(reread.object(forKey: "blob") as? Data == Data([0, 1, 2, 255]))
        #expect(reread.object(forKey: "when") as? Date == date)
        #expect((reread.object(forKey: "nested") as? [String: Any])?["b"] as? Bool == true)
        #expect(reread.object(forKey: "caf\u{E9}") as? Int == 1)
        #expect(reread.object(forKey: "cafe\u{301}") as? Int == 2)
    }

    @Test func exportToStandardOutputAndImportXMLFromStandardInput() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("v", forKey: "k")
        let piped = try fixture.bash(#""$APPGROUP" defaults export "$1" - | head -c 8"#, [group])
        #expect(piped.succeeded && piped.standardOutput == "bplist00", "\(piped.standardError)")
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>fromXML</key><integer>7</integer><key>list</key><array><string>x</string></array></dict></plist>
            """
        let file = fixture.device.scratch.appendingPathComponent("fixture.xml")
        try Data(xml.utf8).write(to: file)
        let imported = try fixture.bash(#""$APPGROUP" defaults import "$1" - < "$2""#, [group, file.path])
        #expect(imported.succeeded, "\(imported.standardError)")
        let defaults = try fixture.appDefaults()
        #expect(try defaults.storedKeys().sorted() == ["fromXML", "list"])
        #expect(defaults.object(forKey: "fromXML") as? Int == 7)
        #expect(defaults.object(forKey: "list") as? [String] == ["x"])
    }

    @Test func importRefusesWhatIsNotADictionaryAndChangesNothing() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("before", forKey: "k")
        let array = fixture.device.scratch.appendingPathComponent("array.plist")
        try Data(#"<?xml version="1.0"?><plist version="1.0"><array><string>a</string></array></plist>"#.utf8).write(to: array)
        try fixture.fail(["defaults", "import", group, array.path], status: 65, ["not a dictionary"])
        let garbage = fixture.device.scratch.appendingPathComponent("garbage.plist")
        try Data("bplist00 truncated".utf8).write(to: garbage)
        try fixture.fail(["defaults", "import", group, garbage.path], status: 65, [garbage.path, "truncated binary property list"])
        try fixture.fail(["defaults", "import", group, fixture.device.scratch.appendingPathComponent("absent").path], status: 1, ["no file at"])
        try fixture.fail(["defaults", "export", group, "--suite", "Absent", "-"], status: 1, ["domain Absent does not exist"])
        #expect(try fixture.appDefaults().storedKeys() == ["k"])
        #expect(try fixture.appDefaults().object(forKey: "k") as? String == "before")
    }

    @Test func importKeepsBothSpellingsOfANestedKey() throws {
        let fixture = try CLIFixture()
        // Twin keys inside a nested dictionary: stored as the file holds them (a
        // Foundation dictionary would keep one; import once refused the file instead).
        let twins = fixture.device.scratch.appendingPathComponent("twins.plist")
        try Data("<plist version=\"1.0\"><dict><key>outer</key><dict><key>caf\u{E9}</key><integer>1</integer><key>cafe\u{301}</key><integer>2</integer></dict></dict></plist>".utf8).write(to: twins)
        try fixture.succeed(["defaults", "import", group, twins.path])
        let snapshot = fixture.device.scratch.appendingPathComponent("twins-export.plist")
        try fixture.succeed(["defaults", "export", group, snapshot.path])
        #expect(try PropertyListCodec.read(Data(contentsOf: snapshot)) == (try PropertyListCodec.read(Data(contentsOf: twins))))
    }

    @Test func readTypeNamesEachTypeAsDefaultsDoes() throws {
        let fixture = try CLIFixture()
        let defaults = try fixture.appDefaults()
        let values: [(String, Any)] = [("string", "s"), ("integer", 3), ("float", 1.5), ("boolean", true), ("data", Data([1])),
                                       ("date", Date()), ("array", [1]), ("dictionary", ["k": 1])]
        for (name, value) in values { try defaults.save(value, forKey: name) }
        for (name, _) in values {
            #expect(try fixture.succeed(["defaults", "read-type", group, name]) == "Type is \(name)\n")
        }
        try fixture.fail(["defaults", "read-type", group, "absent"], status: 1, ["(\(group), absent) does not exist"])
    }

    @Test func renameMovesTheValueAndRefusesAMissingKey() throws {
        let fixture = try CLIFixture()
        let defaults = try fixture.appDefaults()
        try defaults.save([1, 2], forKey: "old")
        try defaults.save("replaced", forKey: "new")
        try fixture.succeed(["defaults", "rename", group, "old", "new"])
        #expect(try fixture.appDefaults().storedKeys() == ["new"])
        #expect(try fixture.appDefaults().object(forKey: "new") as? [Int] == [1, 2])
        try fixture.fail(["defaults", "rename", group, "old", "other"], status: 1, ["(\(group), old) does not exist", "nothing was changed"])
        try fixture.fail(["defaults", "rename", group, "new"], status: 64, ["OLD_KEY NEW_KEY"])
        #expect(try fixture.appDefaults().storedKeys() == ["new"])
    }

    @Test func findSearchesKeysAndStringValuesOfEveryGroupAndApp() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("Blue Whale", forKey: "animal")
        try fixture.appDefaults().save(["deep": ["a whale song"]], forKey: "nested")
        try fixture.appDefaults().save("nothing", forKey: "other")
        // The app's private domain, in its own container.
        try fixture.device.run(as: fixture.notes.app) { resolver in
            try SharedDefaults(requiringSuiteName: nil, resolver: resolver).save(1, forKey: "whaleCount")
        }
        let output = try fixture.succeed(["defaults", "find", "WHALE"])
        #expect(output.contains("Found 2 keys in domain '\(group)' (group \(group)): {"), "\(output)")
        #expect(output.contains("animal = \"Blue Whale\";") && output.contains("nested ="))
        #expect(!output.contains("other"))
        #expect(output.contains("Found 1 keys in domain 'ai.systenics.notes' (app ai.systenics.notes): {\n    whaleCount = 1;\n}"), "\(output)")
        #expect(try fixture.succeed(["defaults", "find", "zebra"]) == "Found no keys matching 'zebra'\n")
    }

    @Test func untypedOldStyleValuesParseAsDefaultsParsesThem() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "list", #"(a, "b c", <6869>, (1, 2))"#])
        try fixture.succeed(["defaults", "write", group, "map", "{ k = v; \"spaced key\" = \"x;y\"; n = (1, 2); /* note */ }"])
        try fixture.succeed(["defaults", "write", group, "plain", "not (a list"])
        let defaults = try fixture.appDefaults()
        let list = try #require(defaults.object(forKey: "list") as? [Any])
        #expect(list.count == 4)
        #expect(list[0] as? String == "a" && list[1] as? String == "b c")
        #expect(list[2] as? Data == Data("hi".utf8))
        #expect(list[3] as? [String] == ["1", "2"], "leaves are strings, as in the old-style format")
        let map = try #require(defaults.object(forKey: "map") as? [String: Any])
        #expect(map["k"] as? String == "v" && map["spaced key"] as? String == "x;y" && map["n"] as? [String] == ["1", "2"])
        #expect(defaults.object(forKey: "plain") as? String == "not (a list")
        for bad in ["(a", "{ k = v }", "(a, b) trailing", "{ = v; }", "(<zz>)", String(repeating: "(", count: 100)] {
            try fixture.fail(["defaults", "write", group, "bad", bad], status: 65, ["could not parse the property list value", "at character"])
        }
        #expect(defaults.object(forKey: "bad") == nil)
    }
}
