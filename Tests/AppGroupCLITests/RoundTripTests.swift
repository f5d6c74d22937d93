import AppGroupTesting
import AppGroupContainer
import Foundation
import SharedDefaults
import Testing
import TestSupport

/// `defaults write` then `defaults read` of each type, through the built binary,
/// checked in the text `defaults read` prints, in JSON, and as the app reads the
/// stored value (so the type on disk is the one asked for).
@Suite(.tags(.multiprocess), .dedicatedThreads) struct RoundTripTests {
    let group = CLIFixture.group

    @Test func stringRoundTrips() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "plain", "hello"])
        try fixture.succeed(["defaults", "write", group, "typed", "-string", "two words; \"quoted\""])
        try fixture.succeed(["defaults", "write", group, "dash", "-string", "-5"])
        #expect(try fixture.succeed(["defaults", "read", group, "plain"]) == "hello\n")
        #expect(try fixture.succeed(["defaults", "read", group, "typed"]) == "two words; \"quoted\"\n")
        #expect(try fixture.json(["defaults", "read", group, "dash"]) as? String == "-5")
        let defaults = try fixture.appDefaults()
        #expect(defaults.object(forKey: "typed") as? String == "two words; \"quoted\"")
        #expect(defaults.object(forKey: "dash") as? String == "-5")
    }

    @Test func integerRoundTrips() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "count", "-int", "-42"])
        try fixture.succeed(["defaults", "write", group, "big", "-integer", String(Int.max)])
        #expect(try fixture.succeed(["defaults", "read", group, "count"]) == "-42\n")
        #expect(try fixture.json(["defaults", "read", group, "big"]) as? Int == Int.max)
        let defaults = try fixture.appDefaults()
        #expect(defaults.object(forKey: "count") as? Int == -42)
        #expect(defaults.object(forKey: "big") as? Int == Int.max)
    }

    @Test func floatRoundTrips() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "ratio", "-float", "1.25"])
        try fixture.succeed(["defaults", "write", group, "whole", "-float", "2"])
        #expect(try fixture.succeed(["defaults", "read", group, "ratio"]) == "1.25\n")
        #expect(try fixture.json(["defaults", "read", group, "ratio"]) as? Double == 1.25)
        let defaults = try fixture.appDefaults()
        #expect(defaults.object(forKey: "ratio") as? Double == 1.25)
        // Stored as a real even when it has no fraction, as `defaults write -float 2` does.
        #expect(defaults.object(forKey: "whole") as? Double == 2)
        #expect(defaults.object(forKey: "whole") as? Int == nil)
    }

    @Test func boolRoundTrips() throws {
        let fixture = try CLIFixture()
        for (word, expected) in [("YES", true), ("no", false), ("true", true), ("FALSE", false), ("1", true), ("0", false)] {
            try fixture.succeed(["defaults", "write", group, "flag", "-bool", word])
            #expect(try fixture.succeed(["defaults", "read", group, "flag"]) == (expected ? "1\n" : "0\n"))
            #expect(try fixture.json(["defaults", "read", group, "flag"]) as? Bool == expected)
            let stored = try fixture.appDefaults().object(forKey: "flag")
            #expect(stored as? Bool == expected && type(of: stored!) == Bool.self, "-bool \(word) stored \(String(describing: stored))")
        }
    }

    @Test func dataRoundTrips() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "blob", "-data", "68656C6c6f00ff"])
        #expect(try fixture.succeed(["defaults", "read", group, "blob"]) == "{length = 7, bytes = 0x68656c6c6f00ff}\n")
        let bytes = Data([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0xff])
        #expect(try fixture.json(["defaults", "read", group, "blob"]) as? String == bytes.base64EncodedString())
        #expect(try fixture.appDefaults().object(forKey: "blob") as? Data == bytes)
        // What `defaults read` prints is accepted back.
        try fixture.succeed(["defaults", "write", group, "again", "-data", "<68656c6c 6f00ff>"])
        #expect(try fixture.appDefaults().object(forKey: "again") as? Data == bytes)
    }

    @Test func dateRoundTrips() throws {
        let fixture = try CLIFixture()
        let date = Date(timeIntervalSince1970: 1_796_115_600) // 2026-12-01 09:00:00 UTC
        try fixture.succeed(["defaults", "write", group, "when", "-date", "2026-12-01T09:00:00Z"])
        let printed = try fixture.succeed(["defaults", "read", group, "when"])
        #expect(printed == "2026-12-01 09:00:00 +0000\n")
        #expect(try fixture.json(["defaults", "read", group, "when"]) as? String == "2026-12-01T09:00:00Z")
        #expect(try fixture.appDefaults().object(forKey: "when") as? Date == date)
        // The printed form writes back to the same instant.
        try fixture.succeed(["defaults", "write", group, "again", "-date", printed.trimmingCharacters(in: .newlines)])
        #expect(try fixture.appDefaults().object(forKey: "again") as? Date == date)
    }

    @Test func arrayRoundTrips() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "list", "-array", "a", "b c", "-int", "3", "-bool", "yes"])
        #expect(try fixture.succeed(["defaults", "read", group, "list"]) == "(\n    a,\n    \"b c\",\n    3,\n    1\n)\n")
        let json = try #require(try fixture.json(["defaults", "read", group, "list"]) as? [Any])
        #expect(json.count == 4 && json[0] as? String == "a" && json[2] as? Int == 3 && json[3] as? Bool == true)
        let stored = try #require(try fixture.appDefaults().object(forKey: "list") as? [Any])
        #expect(stored[0] as? String == "a" && stored[1] as? String == "b c" && stored[2] as? Int == 3 && stored[3] as? Bool == true)
        // -array-add appends under the write lock; an empty -array is an empty array.
        try fixture.succeed(["defaults", "write", group, "list", "-array-add", "d"])
        #expect(try fixture.appDefaults().stringArray(forKey: "list") == nil) // mixed types
        #expect((try fixture.appDefaults().array(forKey: "list"))?.last as? String == "d")
        try fixture.succeed(["defaults", "write", group, "empty", "-array"])
        #expect((try fixture.appDefaults().array(forKey: "empty"))?.isEmpty == true)
    }

    @Test func dictionaryRoundTrips() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "settings", "-dict", "theme", "dark", "font size", "-int", "14", "sync", "-bool", "no"])
        #expect(try fixture.succeed(["defaults", "read", group, "settings"]) == "{\n    \"font size\" = 14;\n    sync = 0;\n    theme = dark;\n}\n")
        let json = try #require(try fixture.json(["defaults", "read", group, "settings"]) as? [String: Any])
        #expect(json["theme"] as? String == "dark" && json["font size"] as? Int == 14)
        try fixture.succeed(["defaults", "write", group, "settings", "-dict-add", "theme", "light", "lines", "-float", "1.5"])
        let stored = try #require(try fixture.appDefaults().dictionary(forKey: "settings"))
        #expect(stored["theme"] as? String == "light" && stored["font size"] as? Int == 14 && stored["lines"] as? Double == 1.5)
        #expect(stored["sync"] as? Bool == false)
    }

    @Test func wholeSuiteReadsAsDefaultsPrintsIt() throws {
        let fixture = try CLIFixture()
        let defaults = try fixture.appDefaults()
        try defaults.save("bottom", forKey: "orientation")
        try defaults.save(true, forKey: "autohide")
        try defaults.save(["com.example.one", "two"], forKey: "apps")
        #expect(try fixture.succeed(["defaults", "read", group]) == """
            {
                apps = (
                    "com.example.one",
                    two
                );
                autohide = 1;
                orientation = bottom;
            }

            """)
        let json = try #require(try fixture.json(["defaults", "read", group]) as? [String: Any])
        #expect(Set(json.keys) == ["apps", "autohide", "orientation"])
    }

    @Test func deleteRemovesAKeyOrEveryKey() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "a", "1"])
        try fixture.succeed(["defaults", "write", group, "b", "2"])
        try fixture.succeed(["defaults", "delete", group, "a"])
        #expect(try fixture.appDefaults().persistentDomain().keys.sorted() == ["b"])
        try fixture.succeed(["defaults", "delete", group])
        #expect(try fixture.appDefaults().persistentDomain().isEmpty)
        #expect(try fixture.succeed(["defaults", "read", group]) == "{\n}\n")
    }

    @Test func anotherSuiteOfTheContainer() throws {
        let fixture = try CLIFixture()
        try fixture.succeed(["defaults", "write", group, "--suite", "Extras", "k", "-int", "7"])
        #expect(try fixture.succeed(["defaults", "read", group, "--suite", "Extras", "k"]) == "7\n")
        #expect(FileManager.default.fileExists(atPath: fixture.container.appendingPathComponent("Library/Preferences/Extras.plist").path))
        // The group's own suite is untouched.
        #expect(try fixture.appDefaults().object(forKey: "k") == nil)
    }
}
