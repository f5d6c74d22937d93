import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import DeviceTestSupport
import TestSupport

/// AppGroupTesting's failures say which process, which target (with its whole
/// identity) and which device, so that a CI log is enough to find the cause.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct AppGroupTestingFailureTests {
    private static let shell = URL(fileURLWithPath: "/bin/sh")

    /// Every part of `target`'s identity and the device's path appear in `message`.
    private static func expectNames(_ target: SimulatedTarget, _ device: SimulatedDevice, in message: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        for part in [target.name, target.bundleIdentifier, target.entitlements.teamIdentifier, device.directory.path]
            + target.entitlements.applicationGroups.map(\.rawValue) + target.entitlements.keychainAccessGroups {
            #expect(message.contains(part), "\(part) is missing from: \(message)", sourceLocation: sourceLocation)
        }
    }

    @Test func aNonZeroExitNamesTheCommandTargetIdentityAndDevice() async throws {
        let notes = try NotesExample()
        try await SimulatedDevice.with { device in
            let outcome = try await device.run(Self.shell, ["-c", "echo 'cannot open the inbox' >&2; exit 3", "it's"], as: notes.shareExtension)
            Self.expectNames(notes.shareExtension, device, in: outcome.description)
            #expect(outcome.description.contains("exited with status 3") && outcome.description.contains("cannot open the inbox"))
            #expect(outcome.description.contains("'it'\\''s'"), "an argument with a quote is quoted as a shell would: \(outcome)")
            #expect(outcome.target == notes.shareExtension && outcome.deviceDirectory == device.directory)
            #expect(!device.hasFailed) // looking at an outcome is not a failure
            let failure = #expect(throws: SimulationError.self) { try outcome.requireSuccess() }?.processFailure
            let message = try #require(failure).description
            Self.expectNames(notes.shareExtension, device, in: message)
            #expect(message.contains("failed: it exited with status 3") && message.contains("cannot open the inbox"))
            #expect(failure?.reason == .ended(outcome))
            #expect(device.hasFailed && device.failures.first == message) // requireSuccess marks the device
            // A success passes through.
            let ok = try await device.run(Self.shell, ["-c", "echo fine"], as: notes.app).requireSuccess()
            #expect(ok.outputLines == ["fine"])
        }
    }

    @Test(.tags(.killed)) func aSignalATimeoutAndNoIdentityAreSaidSo() async throws {
        let notes = try NotesExample()
        try await SimulatedDevice.with { device in
            let killed = try await device.run(Self.shell, ["-c", "kill -9 $$"], as: notes.widget)
            #expect(killed.description.contains("was killed by signal 9"))
            Self.expectNames(notes.widget, device, in: try #require(#expect(throws: SimulationError.self) { try killed.requireSuccess() }?.processFailure).description)
            let slow = try await device.run(URL(fileURLWithPath: "/bin/sleep"), ["60"], as: nil, timeout: 0.2)
            let message = try #require(#expect(throws: SimulationError.self) { try slow.requireSuccess() }?.processFailure).description
            #expect(message.contains("`sleep 60` with no identity on the simulated device at \(device.directory.path)"))
            #expect(message.contains("timeout") && message.contains("its standard error was empty"))
        }
    }

    @Test func aLineThatNeverComesNamesTheTargetAndWhatWasPrinted() async throws {
        let notes = try NotesExample()
        try await SimulatedDevice.with { device in
            let process = try device.launch(Self.shell, ["-c", "echo started; echo warming up >&2; exec sleep 60"], as: notes.app)
            defer { process.kill() }
            let failure = try #require(await #expect(throws: SimulationError.self) { try await process.requireLine("ready", timeout: 0.3) }?.processFailure)
            Self.expectNames(notes.app, device, in: failure.description)
            #expect(failure.description.contains("did not print the line \"ready\" within 0.3 s"))
            #expect(failure.description.contains("started") && failure.description.contains("warming up"))
            #expect(device.hasFailed)
        }
    }

    @Test func aMissingExecutableNamesTheTargetAndDeviceAndSaysHowToBuildIt() async throws {
        let notes = try NotesExample()
        try await SimulatedDevice.with { device in
            let error = try #require(await #expect(throws: SimulationError.self) {
                try await device.run(built: "NotesShareHostThatIsNotBuilt", [], as: notes.shareExtension)
            }?.executableNotBuilt)
            Self.expectNames(notes.shareExtension, device, in: error.description)
            #expect(error.description.contains("swift build --build-tests") && error.target == notes.shareExtension)
            #expect(device.hasFailed)
            #expect(throws: SimulationError.self) { try device.spawn(built: "NotesShareHostThatIsNotBuilt", [], as: nil) }
        }
    }

    @Test func anUnknownKeepPolicyIsATypedErrorNotASilentRemoval() throws {
        for value in ["", "never", "on-failure", "always"] {
            #expect(throws: Never.self) { try SimulatedDevice.KeepPolicy(environment: ["APPGROUP_KEEP_DEVICE": value]) }
        }
        #expect(try SimulatedDevice.KeepPolicy(environment: [:]) == .never)
        let error = #expect(throws: SimulationError.self) { try SimulatedDevice.KeepPolicy(environment: ["APPGROUP_KEEP_DEVICE": "yes"]) }?.invalidKeepPolicy
        #expect(error?.description == "APPGROUP_KEEP_DEVICE=yes is not a keep policy: set it to one of never, on-failure, always, or unset it")
    }

    @Test func aDeviceIsKeptOnlyAsItsPolicySays() throws {
        for policy in SimulatedDevice.KeepPolicy.allCases {
            for failed in [false, true] {
                let device = try SimulatedDevice(name: "KeepPolicyTest", keepPolicy: policy)
                if failed { device.recordFailure("a check failed") }
                device.remove()
                let kept = FileManager.default.fileExists(atPath: device.root.path)
                #expect(kept == (policy == .always || (policy == .onFailure && failed)), "\(policy), failed: \(failed)")
                try? FileManager.default.removeItem(at: device.directory)
            }
        }
    }
}

/// What an outsider would try: odd device names, re-entrant and repeated endings,
/// a cancelled wait, a flood of output.
@Suite(.tags(.hostile), .dedicatedThreads) struct AppGroupTestingHostileTests {
    @Test(arguments: ["", "../../escape", "a/b", "nul\0byte", String(repeating: "n", count: 201)])
    func aNameThatIsNotOneShortFileNameIsATypedError(name: String) throws {
        let error = #expect(throws: SimulationError.self) { try SimulatedDevice(name: name) }?.invalidDeviceName
        #expect(error?.name == name && error?.description.contains("pass a short name") == true)
        let escaped = FileManager.default.temporaryDirectory.deletingLastPathComponent().appendingPathComponent("escape")
        #expect(try FileManager.default.contentsOfDirectory(atPath: escaped.deletingLastPathComponent().path)
            .allSatisfy { !$0.hasPrefix("escape-") }, "a device was made outside the temporary directory")
    }

    @Test func oddButValidNamesWork() throws {
        for name in ["..", "with space", "caf\u{E9}", "-", String(repeating: "n", count: 200)] {
            try SimulatedDevice.with(name: name) { device in
                #expect(device.directory.deletingLastPathComponent().path == FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path)
                #expect(device.directory.lastPathComponent.hasPrefix(name + "-"))
            }
        }
    }

    @Test func endingADeviceTwiceOrInsideAnotherIsHarmless() throws {
        var inner: URL?
        try SimulatedDevice.with { outer in
            try SimulatedDevice.with { device in
                inner = device.directory
                device.remove()
                device.remove()
                #expect(!FileManager.default.fileExists(atPath: device.directory.path))
            }
            #expect(FileManager.default.fileExists(atPath: outer.root.path))
        }
        #expect(inner.map { !FileManager.default.fileExists(atPath: $0.path) } == true)
        // A kept device stays kept when ended again (deinit included).
        var kept: SimulatedDevice? = try SimulatedDevice(keepPolicy: .always)
        let directory = try #require(kept?.directory)
        kept?.remove()
        kept = nil
        #expect(FileManager.default.fileExists(atPath: directory.path))
        try FileManager.default.removeItem(at: directory)
    }

    @Test(.tags(.killed)) func aCancelledWaitReturnsAtOnce() async throws {
        let process = try LaunchedProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["600"],
                                          environment: ProcessInfo.processInfo.environment)
        defer { process.kill() }
        // Without cancellation these would wait ten minutes. (A generous deadline
        // measured here, not a time limit: under `.dedicatedThreads` a test's
        // time includes its wait for a turn.)
        let cancelled = Date()
        let line = Task { await process.line("never", timeout: 600) }
        let end = Task { await process.outcome(timeout: 600) }
        line.cancel()
        #expect(await line.value == false)
        end.cancel() // a cancelled wait for the end kills the process, then returns its outcome
        let outcome = await end.value
        #expect(outcome.signal == SIGKILL && !outcome.timedOut)
        #expect(Date().timeIntervalSince(cancelled) < 60, "the cancelled waits took \(Date().timeIntervalSince(cancelled)) s")
    }

    @Test func aFloodOfStandardErrorIsCutToItsLastLines() async throws {
        let notes = try NotesExample()
        try await SimulatedDevice.with { device in
            let outcome = try await device.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "i=0; while [ $i -lt 5000 ]; do echo line$i >&2; i=$((i+1)); done; exit 1"],
                                               as: notes.widget)
            let message = try #require(#expect(throws: SimulationError.self) { try outcome.requireSuccess() }?.processFailure).description
            #expect(message.contains("the last 20 lines of its standard error") && message.contains("line4999") && !message.contains("line4979\n"))
            #expect(outcome.standardError.split(separator: "\n").count == 5000) // the outcome itself keeps it all
        }
    }
}
