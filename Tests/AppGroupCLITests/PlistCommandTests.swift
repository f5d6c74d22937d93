import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// `appgroup plist`: `plutil -p`, `-lint` and `-convert` for any property-list file.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct PlistCommandTests {
    static let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>name</key><string>Notes "app"</string>
            <key>count</key><integer>-3</integer>
            <key>ratio</key><real>1.5</real>
            <key>on</key><true/>
            <key>list</key><array><string>a</string><dict><key>k</key><false/></dict></array>
            <key>caf\u{E9}</key><integer>1</integer>
            <key>cafe\u{301}</key><integer>2</integer>
        </dict>
        </plist>
        """

    func write(_ fixture: CLIFixture, _ text: String, _ name: String = "sample.plist") throws -> URL {
        let url = fixture.device.scratch.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func printsAsPlutilDoes() throws {
        let fixture = try CLIFixture()
        let file = try write(fixture, Self.sample)
        let expected = """
            {
              "name" => "Notes \\"app\\""
              "count" => -3
              "ratio" => 1.5
              "on" => true
              "list" => [
                0 => "a"
                1 => {
                  "k" => false
                }
              ]
              "caf\u{E9}" => 1
              "cafe\u{301}" => 2
            }

            """
        let printed = try fixture.succeed(["plist", file.path])
        #expect(Array(printed.unicodeScalars) == Array(expected.unicodeScalars), "\(printed)")
        #expect(try fixture.succeed(["plist", file.path, "--lint"]) == "\(file.path): OK\n")
    }

    @Test func convertsInPlaceOrToAnotherFileKeepingEveryKey() throws {
        let fixture = try CLIFixture()
        let file = try write(fixture, Self.sample)
        let printed = try fixture.succeed(["plist", file.path])
        try fixture.succeed(["plist", file.path, "--convert", "binary1"])
        #expect(try Data(contentsOf: file).starts(with: Array("bplist00".utf8)))
        #expect(try fixture.succeed(["plist", file.path]) == printed, "binary holds the same tree, both spellings of café")
        let xml = fixture.device.scratch.appendingPathComponent("back.xml")
        try fixture.succeed(["plist", file.path, "--convert", "xml1", "--output", xml.path])
        #expect(try String(contentsOf: xml, encoding: .utf8).contains("<key>ratio</key>"))
        #expect(try fixture.succeed(["plist", xml.path]) == printed)
        // JSON: a file whose keys JSON would merge is refused, saying which.
        try fixture.fail(["plist", file.path, "--convert", "json", "--output", "-"], status: 1, ["two spellings of one key"])
        let simple = try write(fixture, #"<plist version="1.0"><dict><key>n</key><integer>4</integer><key>s</key><array><string>x</string></array></dict></plist>"#, "simple.plist")
        let json = try fixture.succeed(["plist", simple.path, "--convert", "json", "--output", "-"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["n"] as? Int == 4 && object["s"] as? [String] == ["x"])
        let dated = try write(fixture, #"<plist version="1.0"><dict><key>d</key><date>2026-11-30T09:00:00Z</date></dict></plist>"#, "dated.plist")
        try fixture.fail(["plist", dated.path, "--convert", "json"], status: 1, ["invalid object in plist for destination format", "/d"])
        #expect(try String(contentsOf: dated, encoding: .utf8).contains("<date>"), "a refused conversion leaves the file as it was")
        #expect(try fixture.succeed(["plist", dated.path]).contains("\"d\" => 2026-11-30 09:00:00 +0000"))
    }

    @Test func badFilesAndArgumentsFailWithTheReason() throws {
        let fixture = try CLIFixture()
        let truncated = fixture.device.scratch.appendingPathComponent("truncated.plist")
        try Data("bplist00\u{0}\u{1}".utf8).write(to: truncated)
        try fixture.fail(["plist", truncated.path, "--lint"], status: 65, [truncated.path])
        let text = try write(fixture, "just some words", "words.plist")
        try fixture.fail(["plist", text.path], status: 65, ["not a valid property list"])
        let deep = try write(fixture, "<plist><array>" + String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600) + "</array></plist>", "deep.plist")
        let outcome = try fixture.appgroup(["plist", deep.path])
        #expect(outcome.signal == nil && outcome.status == 65, "a crafted deep file is refused, not a crash: \(outcome.status) \(outcome.standardError)")
        try fixture.fail(["plist", fixture.device.scratch.appendingPathComponent("absent.plist").path], status: 1, ["no file at"])
        try fixture.fail(["plist", text.path, "--convert", "yaml"], status: 64, ["unknown format 'yaml'"])
        try fixture.fail(["plist", text.path, "--lint", "--json"], status: 64, ["one at a time"])
        try fixture.fail(["plist", text.path, "--output", "x"], status: 64, ["--output goes with --convert"])
        try fixture.fail(["plist"], status: 64, ["expected FILE"])
    }
}
