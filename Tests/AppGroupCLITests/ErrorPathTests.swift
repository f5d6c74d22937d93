import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import TestSupport

/// Every failure exits non-zero with one line on standard error that names the
/// problem, prints nothing on standard output, and changes nothing.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ErrorPathTests {
    let group = CLIFixture.group

    /// Runs `arguments`, expects `status` and one stderr line containing every one of `phrases`.
    func expectFailure(_ fixture: CLIFixture, _ arguments: [String], status: Int32, _ phrases: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outcome = try fixture.appgroup(arguments)
        #expect(outcome.signal == nil && !outcome.timedOut, sourceLocation: sourceLocation)
        #expect(outcome.status == status, "appgroup \(arguments): status \(outcome.status), stderr \(outcome.standardError)", sourceLocation: sourceLocation)
        #expect(outcome.standardOutput.isEmpty, "appgroup \(arguments) printed \(outcome.standardOutput)", sourceLocation: sourceLocation)
        let lines = outcome.standardError.split(separator: "\n")
        #expect(lines.count == 1, "appgroup \(arguments): stderr is not one line: \(outcome.standardError)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("appgroup: ") == true, sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(outcome.standardError.contains(phrase), "appgroup \(arguments): \"\(phrase)\" not in \(outcome.standardError)", sourceLocation: sourceLocation)
        }
    }

    @Test func unknownGroup() throws {
        let fixture = try CLIFixture()
        for command in [["path"], ["pending"], ["defaults", "read"], ["defaults", "delete"]] {
            try expectFailure(fixture, command + ["group.com.example.absent"], status: 1,
                              ["unknown group group.com.example.absent", "groups present: \(group)"])
        }
        try expectFailure(fixture, ["defaults", "write", "group.com.example.absent", "k", "v"], status: 1, ["unknown group"])
        // Looking never creates a container.
        #expect(!FileManager.default.fileExists(atPath: try fixture.device.containerLocation(for: "group.com.example.absent").path))
    }

    @Test func invalidGroupIdentifier() throws {
        let fixture = try CLIFixture()
        try expectFailure(fixture, ["path", "group.x/../../etc"], status: 64, ["invalid App Group identifier"])
        try expectFailure(fixture, ["defaults", "read", "notagroup"], status: 64, ["invalid App Group identifier"])
    }

    @Test func missingRoot() throws {
        let fixture = try CLIFixture()
        let absent = fixture.device.scratch.appendingPathComponent("no-such-root").path
        try expectFailure(fixture, ["list", "--root", absent], status: 1, ["no container root at \(absent)"])
        try expectFailure(fixture, ["path", "--root", absent, group], status: 1, ["unknown group"])
    }

    @Test func missingKeyAndSuite() throws {
        let fixture = try CLIFixture()
        try expectFailure(fixture, ["defaults", "read", group], status: 1, ["domain \(group) does not exist"])
        try fixture.appDefaults().save("v", forKey: "present")
        try expectFailure(fixture, ["defaults", "read", group, "absent"], status: 1,
                          ["the domain/default pair of (\(group), absent) does not exist"])
        try expectFailure(fixture, ["defaults", "delete", group, "absent"], status: 1,
                          ["(\(group), absent) does not exist", "nothing was changed"])
        try expectFailure(fixture, ["defaults", "read", group, "--suite", "Other"], status: 1, ["domain Other does not exist"])
        #expect(try fixture.appDefaults().persistentDomain().keys.sorted() == ["present"])
    }

    @Test(arguments: [
        (["-int", "12x"], "\"12x\" is not an integer"),
        (["-integer", "99999999999999999999"], "is not an integer"),
        (["-float", "one"], "\"one\" is not a finite number"),
        (["-float", "nan"], "is not a finite number"),
        (["-bool", "maybe"], "\"maybe\" is not a boolean"),
        (["-data", "abc"], "\"abc\" is not hex data"),
        (["-data", "zz"], "\"zz\" is not hex data"),
        (["-date", "yesterday"], "\"yesterday\" is not a date"),
        (["-date", "2026-13-45"], "is not a date"),
        (["-array", "-int", "x"], "\"x\" is not an integer"),
        (["-dict", "lonely"], "the key \"lonely\" has no value"),
        (["-dict", "k", "-bool", "perhaps"], "\"perhaps\" is not a boolean"),
        (["-int", "1", "2"], "-int takes exactly one value"),
        (["-array", "-array"], "cannot be nested"),
    ])
    func badValue(_ value: [String], _ phrase: String) throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("before", forKey: "k")
        try expectFailure(fixture, ["defaults", "write", group, "k"] + value, status: 65, [phrase])
        #expect(try fixture.appDefaults().object(forKey: "k") as? String == "before")
    }

    @Test func corruptSuiteFile() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("v", forKey: "k")
        let garbage = Data("bplist00 this is not a property list".utf8)
        try garbage.write(to: fixture.suiteFile)
        for arguments in [["defaults", "read", group], ["defaults", "read", group, "k"], ["defaults", "write", group, "k", "w"],
                          ["defaults", "delete", group, "k"], ["defaults", "delete", group]] {
            try expectFailure(fixture, arguments, status: 1, ["corrupt suite file \(fixture.suiteFile.path)", "changes nothing"])
        }
        // The file is left for a person to inspect: not rewritten, not moved aside.
        #expect(try Data(contentsOf: fixture.suiteFile) == garbage)
        let preferences = try FileManager.default.contentsOfDirectory(atPath: fixture.suiteFile.deletingLastPathComponent().path)
        #expect(!preferences.contains { $0.contains("corrupt") })
    }

    @Test func badArguments() throws {
        let fixture = try CLIFixture()
        let cases: [([String], String)] = [
            ([], "missing command"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["defaults"], "missing defaults command"),
            (["defaults", "copy", group], "unknown defaults command 'copy'"),
            (["path"], "missing arguments: expected GROUP"),
            (["path", group, "extra"], "unexpected argument 'extra'"),
            (["list", "--verbose"], "unknown option '--verbose'"),
            (["list", "--root"], "--root needs a value"),
            (["list", "--root", ""], "--root needs a directory"),
            (["pending", group, "--json=yes"], "--json takes no value"),
            (["defaults", "read", group, "--suite", "a", "--suite", "b"], "--suite is given twice"),
            (["defaults", "read", group, "k", "extra"], "unexpected argument 'extra'"),
            (["defaults", "write", group], "missing arguments"),
            (["defaults", "write", group, "k"], "needs a value after the key"),
            (["defaults", "write", group, "k", "a", "b"], "several values given without a type"),
            (["defaults", "write", group, "k", "-integr", "5"], "unknown type -integr"),
            (["defaults", "write", group, "--suite", "a/b", "k", "v"], "cannot use \"a/b\" as a suite name"),
            (["defaults", "read", group, "-x"], "unknown option '-x'"),
        ]
        for (arguments, phrase) in cases {
            try expectFailure(fixture, arguments, status: 64, [phrase, "(see --help)"])
        }
    }

    @Test func typeMismatchOnAdd() throws {
        let fixture = try CLIFixture()
        try fixture.appDefaults().save("text", forKey: "k")
        try expectFailure(fixture, ["defaults", "write", group, "k", "-array-add", "x"], status: 1,
                          ["holds a string", "-array-add appends to an array", "nothing was written"])
        try expectFailure(fixture, ["defaults", "write", group, "k", "-dict-add", "a", "b"], status: 1, ["-dict-add adds to a dictionary"])
        #expect(try fixture.appDefaults().object(forKey: "k") as? String == "text")
    }

    @Test func helpEverywhere() throws {
        let fixture = try CLIFixture()
        let helps: [[String]] = [["--help"], ["help"], ["-h"], ["path", "--help"], ["list", "-h"], ["pending", "--help"],
                                 ["defaults", "--help"], ["defaults", "read", "--help"], ["defaults", "write", "--help"],
                                 ["defaults", "write", group, "k", "--help"], ["defaults", "delete", "--help"],
                                 ["list", "--bogus", "--help"]]
        for arguments in helps {
            let output = try fixture.succeed(arguments)
            #expect(output.hasPrefix("usage: appgroup"), "appgroup \(arguments): \(output)")
        }
        let overview = try fixture.succeed(["--help"])
        #expect(overview.contains("acts as an") && overview.contains("identity entitled to the group it names"))
        #expect(overview.contains("inspector, like the simulator tools"))
        for command in [["path"], ["pending"], ["defaults", "read"], ["defaults", "write"], ["defaults", "delete"]] {
            #expect(try fixture.succeed(command + ["--help"]).contains("entitled to GROUP"), "\(command) --help")
        }
        // Storing the text "--help" stays possible.
        try fixture.succeed(["defaults", "write", group, "k", "-string", "--help"])
        #expect(try fixture.appDefaults().object(forKey: "k") as? String == "--help")
    }
}
