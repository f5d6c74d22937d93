import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Normalization twins in `appgroup defaults read`: a suite holding two
/// keys that differ only in Unicode normalization (written by another program, as
/// iOS keeps them: CFString compares code units) prints both, and reading one key
/// prints that key's own value, never its twin's.
@Suite(.tags(.multiprocess, .python), .dedicatedThreads) struct NormalizationTwinReadTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func bothSpellingsArePrintedAndReadExactly() throws {
        let fixture = try CLIFixture()
        // A suite made by the app, then rewritten by a Python peer with both spellings.
        try fixture.appDefaults().save("seed", forKey: "other")
        let script = """
            import plistlib, sys
            path = sys.argv[1]
            with open(path, "rb") as f: d = plistlib.load(f)
            d["caf\\u00e9"] = "composed"; d["cafe\\u0301"] = "decomposed"
            with open(path, "wb") as f: plistlib.dump(d, f, fmt=plistlib.FMT_BINARY)
            """
        let python = try LaunchedProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, fixture.suiteFile.path])
        try #require(python.status == 0)

        let whole = try fixture.succeed(["defaults", "read", CLIFixture.group])
        #expect(whole.contains("composed") && whole.contains("decomposed"), "both entries printed: \(whole)")
        #expect(try fixture.succeed(["defaults", "read", CLIFixture.group, Self.composed]) == "composed\n")
        #expect(try fixture.succeed(["defaults", "read", CLIFixture.group, Self.decomposed]) == "decomposed\n")

        let json = try fixture.succeed(["defaults", "read", CLIFixture.group, "--json"])
        #expect(json.contains("\"composed\"") && json.contains("\"decomposed\"") && json.contains("\"seed\""), "\(json)")
        let keys = json.utf8.split(separator: UInt8(ascii: "\n")).filter { $0.contains(UInt8(ascii: ":")) }.count
        #expect(keys == 3, "three members in the JSON object: \(json)")
    }
}
