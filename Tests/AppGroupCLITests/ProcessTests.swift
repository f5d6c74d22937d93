import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import TestSupport

/// `appgroup` among other processes: its writes reach a running observer, and
/// concurrent writers never clobber one another.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct ProcessTests {
    let group = CLIFixture.group

    @Test func aWriteIsSeenByARunningObserverInAnotherProcess() throws {
        let fixture = try CLIFixture()
        // The widget watches the group's suite, as a running app or extension would.
        let watcher = try fixture.device.launch(try CLIFixture.binary("DefaultsProbe"),
                                                ["watch", "--suite", group, "--key", "launches", "--until", "7"],
                                                as: fixture.notes.widget)
        defer { watcher.kill() }
        #expect(watcher.waitForLine(timeout: 30) { $0 == "ready" } != nil, "the observer never started: \(watcher.standardError)")
        try fixture.succeed(["defaults", "write", group, "launches", "-int", "7"])
        let outcome = watcher.wait(timeout: 30)
        #expect(outcome.succeeded, "the observer did not see 7: \(outcome.status) \(outcome.standardError)")
        #expect(outcome.outputLines.last == "7")
    }

    @Test func fourConcurrentWritersKeepEveryKey() throws {
        let fixture = try CLIFixture()
        let defaults = try fixture.appDefaults()
        try defaults.save("kept", forKey: "existing")
        let binary = try CLIFixture.binary("appgroup")
        let writesPerProcess = 12
        // Four processes at once, each a chain of writes of its own keys: every
        // write is a read-modify-write of the whole suite, so without the lock
        // they would overwrite one another's keys.
        let writers = try (0..<4).map { writer in
            try fixture.device.launch(URL(fileURLWithPath: "/bin/sh"), ["-c", """
                i=0
                while [ $i -lt \(writesPerProcess) ]; do
                    "$0" defaults write \(group) "w\(writer)-$i" -int $i || exit 1
                    i=$((i + 1))
                done
                """, binary.path], as: nil)
        }
        for writer in writers {
            let outcome = writer.wait(timeout: 90)
            #expect(outcome.succeeded, "a writer failed: \(outcome.status) \(outcome.standardError)")
        }
        let values = try defaults.persistentDomain()
        #expect(values.count == 4 * writesPerProcess + 1)
        #expect(values["existing"] as? String == "kept")
        for writer in 0..<4 {
            for i in 0..<writesPerProcess {
                #expect(values["w\(writer)-\(i)"] as? Int == i, "w\(writer)-\(i) was lost")
            }
        }
    }

    @Test func aWriteDoesNotClobberAnAppIncrementingConcurrently() throws {
        let fixture = try CLIFixture()
        // The app increments a counter 300 times while appgroup writes other keys.
        let app = try fixture.device.launch(try CLIFixture.binary("DefaultsProbe"),
                                            ["increment", "--suite", group, "--key", "counter", "--count", "300"],
                                            as: fixture.notes.app)
        for i in 0..<5 { try fixture.succeed(["defaults", "write", group, "cli\(i)", "-bool", "yes"]) }
        let outcome = app.wait(timeout: 90)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        let values = try fixture.appDefaults().persistentDomain()
        #expect(values["counter"] as? Int == 300)
        for i in 0..<5 { #expect(values["cli\(i)"] as? Bool == true) }
    }
}
