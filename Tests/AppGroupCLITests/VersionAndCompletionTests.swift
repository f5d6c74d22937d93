import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// `--version` and `-h` on every executable, and `appgroup completion`.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct VersionAndCompletionTests {
    @Test(arguments: ["appgroup", "ShareFlowDemo", "Benchmarks"])
    func versionAndShortHelp(_ name: String) throws {
        let binary = try SimulatedDevice.requireBuiltExecutable(named: name)
        let version = try LaunchedProcess.run(binary, ["--version"])
        #expect(version.succeeded && version.standardOutput == "\(name) \(AppGroupContainerVersion.string)\n", "\(version.standardOutput)")
        let long = try LaunchedProcess.run(binary, ["--help"])
        let short = try LaunchedProcess.run(binary, ["-h"])
        let word = try LaunchedProcess.run(binary, ["help"])
        #expect(long.succeeded && long.standardOutput.contains("usage: \(name)"))
        #expect(short.succeeded && short.standardOutput == long.standardOutput)
        #expect(word.succeeded && word.standardOutput == long.standardOutput)
    }

    @Test func everyCommandHasHelp() throws {
        let fixture = try CLIFixture()
        let commands: [[String]] = [["path"], ["list"], ["create"], ["erase"], ["pending"], ["plist"], ["completion"], ["device"],
                                    ["device", "biometry"], ["keychain"], ["keychain", "list"], ["keychain", "delete"], ["keychain", "reset"]]
            + ["read", "read-type", "write", "delete", "rename", "find", "export", "import"].map { ["defaults", $0] }
        for command in commands {
            let outcome = try fixture.appgroup(command + ["-h"])
            #expect(outcome.succeeded && outcome.standardOutput.hasPrefix("usage: appgroup \(command[0])")
                    && outcome.standardOutput.contains("appgroup \(command.joined(separator: " "))"), "\(command): \(outcome.standardOutput)")
        }
        let overview = try fixture.succeed(["--help"])
        for command in ["path", "list", "create", "erase", "defaults", "pending", "keychain", "device", "plist", "trace", "completion"] {
            #expect(overview.contains("  \(command)"), "the overview lists \(command)")
        }
        try fixture.fail(["fly"], status: 64, ["unknown command 'fly'"])
        try fixture.fail(["defaults", "fly"], status: 64, ["unknown defaults command 'fly'", "read-type"])
    }

    @Test func bashCompletionParsesAndCompletes() throws {
        let fixture = try CLIFixture()
        let script = try fixture.succeed(["completion", "bash"])
        let file = fixture.device.scratch.appendingPathComponent("appgroup.bash")
        try Data(script.utf8).write(to: file)
        let syntax = try LaunchedProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-n", file.path])
        #expect(syntax.succeeded, "bash -n: \(syntax.standardError)")
        // Complete as bash would: `appgroup def<TAB>`, `appgroup defaults re<TAB>`, `appgroup plist x --convert <TAB>`.
        let completing = """
            source "$1"
            COMP_WORDS=(appgroup def); COMP_CWORD=1; _appgroup; echo "${COMPREPLY[*]}"
            COMP_WORDS=(appgroup defaults re); COMP_CWORD=2; _appgroup; echo "${COMPREPLY[*]}"
            COMP_WORDS=(appgroup plist x --convert ""); COMP_CWORD=4; _appgroup; echo "${COMPREPLY[*]}"
            COMP_WORDS=(appgroup device ""); COMP_CWORD=2; _appgroup; echo "${COMPREPLY[*]}"
            COMP_WORDS=(appgroup device biometry ""); COMP_CWORD=3; _appgroup; echo "${COMPREPLY[*]}"
            COMP_WORDS=(appgroup device biometry type ""); COMP_CWORD=4; _appgroup; echo "${COMPREPLY[*]}"
            COMP_WORDS=(appgroup device biometry next match no); COMP_CWORD=5; _appgroup; echo "${COMPREPLY[*]}"
            """
        let outcome = try LaunchedProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", completing, "bash", file.path])
        #expect(outcome.succeeded, "\(outcome.standardError)")
        #expect(outcome.outputLines == ["defaults", "read read-type rename", "xml1 binary1 json", "lock unlock reboot status biometry",
                                      "status type enroll unenroll re-enroll next reset", "none touch-id face-id", "no-match"], "\(outcome.outputLines)")
        try fixture.fail(["completion", "fish"], status: 64, ["unknown shell 'fish'"])
    }

    /// zsh, when installed; .ci/run does not install it (nor is it on CI's image).
    static let zsh = ["/usr/bin/zsh", "/bin/zsh"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func zshCompletionIsACompdefScript() throws {
        let script = try CLIFixture().succeed(["completion", "zsh"])
        #expect(script.hasPrefix("#compdef appgroup\n"))
        #expect(script.contains("compdef _appgroup appgroup"))
    }

    @Test(.enabled(if: zsh != nil, "zsh is not installed here: .ci/run does not install it, so zsh -n cannot run"))
    func zshCompletionParses() throws {
        let fixture = try CLIFixture()
        let zsh = try #require(Self.zsh)
        let file = fixture.device.scratch.appendingPathComponent("_appgroup")
        try Data(try fixture.succeed(["completion", "zsh"]).utf8).write(to: file)
        let syntax = try LaunchedProcess.run(URL(fileURLWithPath: zsh), ["-n", file.path])
        #expect(syntax.succeeded, "zsh -n: \(syntax.standardError)")
    }
}
