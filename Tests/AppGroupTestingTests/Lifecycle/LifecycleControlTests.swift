import AppGroupTesting
import DeviceTestSupport
import Foundation
import TestSupport
import Testing

/// A test drives a launched target through iOS's lifecycle, and
/// the target's process is told first with Apple's notification names.
@Suite(.tags(.multiprocess)) struct LifecycleControlTests {
    @Test func anAppIsToldThenSuspendedResumedAndTerminated() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        let app = try await fixture.probe(["observe"], as: fixture.notes.app)
        #expect(try device.lifecycleState(of: app) == .foreground)

        try await device.moveToBackground(app)
        // Acknowledged only after the observers returned: the lines were written before.
        try await app.requireLine("notified UIApplicationWillResignActiveNotification", timeout: 30)
        try await app.requireLine("notified UIApplicationDidEnterBackgroundNotification", timeout: 30)
        #expect(try device.lifecycleState(of: app) == .background)

        #expect(try await device.suspend(app) == .suspended)
        #expect(LifecycleFixture.kernelState(app.processIdentifier) == "T")
        #expect(try device.lifecycleState(of: app) == .suspended)

        try await device.resume(app)
        #expect(LifecycleFixture.kernelState(app.processIdentifier) != "T")
        try await app.requireLine("notified UIApplicationWillEnterForegroundNotification", timeout: 30)
        try await app.requireLine("notified UIApplicationDidBecomeActiveNotification", timeout: 30)

        let report = try await device.terminate(app)
        #expect(report.reason == .terminatedBySystem)
        #expect(app.outputLines.contains("notified UIApplicationWillTerminateNotification"))
        #expect(device.terminations.map(\.processIdentifier) == [app.processIdentifier])
        #expect(try device.lifecycleState(of: app) == .ended)
    }

    @Test func anExtensionHearsTheExtensionHostsNamesAndNoWillTerminate() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        let widget = try await fixture.probe(["observe"], as: fixture.notes.widget)
        try await device.moveToBackground(widget)
        try await widget.requireLine("notified NSExtensionHostWillResignActiveNotification", timeout: 30)
        try await widget.requireLine("notified NSExtensionHostDidEnterBackgroundNotification", timeout: 30)
        try await device.resume(widget)
        try await widget.requireLine("notified NSExtensionHostWillEnterForegroundNotification", timeout: 30)
        try await widget.requireLine("notified NSExtensionHostDidBecomeActiveNotification", timeout: 30)
        let report = try await device.terminate(widget)
        #expect(report.reason == .terminatedBySystem)
        #expect(!widget.outputLines.contains { $0.contains("WillTerminate") })
        #expect(!widget.outputLines.contains { $0.contains("UIApplication") })
    }

    @Test(.tags(.killed)) func jetsamKillsASuspendedTargetWithoutAWord() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        let app = try await fixture.probe(["observe"], as: fixture.notes.app)
        try await device.moveToBackground(app)
        try await device.suspend(app)
        let report = try await device.jetsam(app)
        #expect(report.reason == .jetsam)
        #expect(report.state == .suspended)
        #expect(report.target == fixture.notes.app)
        #expect(!app.outputLines.contains { $0.contains("WillTerminate") })
        #expect(app.wait(timeout: 30).signal == SIGKILL)
    }

    @Test func requestsInAnOrderIOSNeverUsesAreTypedErrorsNamingTheState() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        let app = try await fixture.probe(["observe"], as: fixture.notes.app)
        expectSimulationError(\.lifecycle) { try device.resume(app) }
        do {
            try await device.resume(app)
        } catch SimulationError.lifecycle(let error) {
            #expect(error.problem == .order)
            #expect(error.state == .foreground)
            #expect(error.description.contains("in the foreground"))
        }
        do {
            try await device.suspend(app)
            Issue.record("suspended a target in the foreground")
        } catch SimulationError.lifecycle(let error) {
            #expect(error.problem == .order)
        }
        try await device.jetsam(app)
        do {
            try await device.moveToBackground(app)
            Issue.record("moved an ended target")
        } catch SimulationError.lifecycle(let error) {
            #expect(error.problem == .ended)
            #expect(error.description.contains("ended"))
        }
        // A process with no target has no lifecycle.
        let plain = try device.launch(URL(fileURLWithPath: "/bin/sleep"), ["30"], as: nil)
        defer { plain.kill() }
        do {
            try await device.moveToBackground(plain)
            Issue.record("moved a process launched with no target")
        } catch SimulationError.lifecycle(let error) {
            #expect(error.problem == .notATarget)
        }
    }

    @Test func aProgramThatDoesNotLinkThePackageIsSuspendedUntold() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        let shell = try device.launch(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo ready; exec sleep 60"], as: fixture.notes.app)
        try await shell.requireLine("ready", timeout: 60)
        try await device.moveToBackground(shell)
        #expect(try await device.suspend(shell) == .suspended)
        #expect(LifecycleFixture.kernelState(shell.processIdentifier) == "T")
        try await device.resume(shell)
        try await device.terminate(shell)
    }
}

/// Item 6: every ending of a target is a typed record.
@Suite(.tags(.multiprocess)) struct TerminationReportTests {
    @Test(.tags(.killed)) func aCrashAndAnExitAreRecordedWithTheEndOfStandardError() async throws {
        let fixture = try LifecycleFixture()
        defer { fixture.device.remove() }
        let device = fixture.device
        let crash = try device.launch(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo first >&2; echo about to crash >&2; kill -SEGV $$"],
                                      as: fixture.notes.shareExtension)
        let crashed = try #require(try await device.termination(of: crash, timeout: 60))
        #expect(crashed.reason == .crash(signal: SIGSEGV))
        #expect(crashed.standardErrorTail.last == "about to crash")
        #expect(crashed.target == fixture.notes.shareExtension)
        let exit = try device.launch(URL(fileURLWithPath: "/bin/sh"), ["-c", "exit 3"], as: fixture.notes.app)
        let exited = try #require(try await device.termination(of: exit, timeout: 60))
        #expect(exited.reason == .exit(status: 3))
        #expect(device.terminations.count == 2)
        #expect(crashed.description.contains("signal 11"))
    }

    @Test(.tags(.killed)) func aKeptDeviceKeepsItsTerminations() async throws {
        let device = try SimulatedDevice(name: "LifecycleKept", keepPolicy: .always)
        defer { try? FileManager.default.removeItem(at: device.directory) }
        let notes = try NotesExample()
        let crash = try device.launch(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo last words >&2; kill -SEGV $$"], as: notes.widget)
        _ = try #require(try await device.termination(of: crash, timeout: 60))
        device.remove()
        let kept = try String(contentsOf: device.directory.appendingPathComponent(SimulatedDevice.terminationsFileName), encoding: .utf8)
        #expect(kept.contains("NotesWidget [\(crash.processIdentifier)]"))
        #expect(kept.contains("signal 11"))
        #expect(kept.contains("last words"))
    }
}
