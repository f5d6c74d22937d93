import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// Item 4: what the kernel lets a spawned target reach, and what Foundation makes
/// of a refusal (what code would see on a device).
@Suite(.tags(.multiprocess, .hostile), .simulatedDevices, .requiresSandbox(.fail)) struct SandboxEnforcementTests {
    @Test func aWriteOutsideEveryContainerIsRefusedAsOnIOS() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let outside = device.outside.appendingPathComponent("articles.json")
            let write = try await device.run(built: "SandboxProbe", ["write", outside.path, "x"], as: reader.share)
            #expect(write.outputLines == ["error NSCocoaErrorDomain 513 underlying none"], "\(write)")
            #expect(!FileManager.default.fileExists(atPath: outside.path))
            // The kernel answers EACCES where iOS's sandbox answers EPERM (see the article).
            let errno = try await device.run(built: "SandboxProbe", ["open-errno", outside.path], as: reader.share)
            #expect(errno.outputLines == ["errno EACCES"], "\(errno)")
            try Data("secret".utf8).write(to: device.outside.appendingPathComponent("secret.txt"))
            let read = try await device.run(built: "SandboxProbe", ["read", device.outside.appendingPathComponent("secret.txt").path], as: reader.share)
            #expect(read.outputLines == ["error NSCocoaErrorDomain 257 underlying none"], "\(read)")
            // The same code, launched unenforced for debugging, writes there.
            let unenforced = try await device.run(built: "SandboxProbe", ["write", outside.path, "x"], as: reader.share, sandbox: .unenforced)
            #expect(unenforced.outputLines == ["ok " + outside.path], "\(unenforced)")
        }
    }

    @Test func dotDotOutOfTheGroupContainerIsRefused() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let escape = try await device.run(built: "SandboxProbe", ["write-group", ReaderTargets.group, "../articles.json", "x"], as: reader.share)
            #expect(escape.outputLines == ["error NSCocoaErrorDomain 513 underlying none"], "\(escape)")
            #expect(!FileManager.default.fileExists(atPath: device.root.appendingPathComponent("articles.json").path))
            let inside = try await device.run(built: "SandboxProbe", ["write-group", ReaderTargets.group, "articles.json", "x"], as: reader.share)
            #expect(inside.outputLines.first?.hasPrefix("ok ") == true, "\(inside)")
            let seen = try await device.run(built: "SandboxProbe", ["read", try device.containerLocation(for: ReaderTargets.group).appendingPathComponent("articles.json").path],
                                            as: reader.app)
            #expect(seen.outputLines == ["ok x"], "the app reads what its extension shared: \(seen)")
        }
    }

    @Test func aGroupTheTargetDoesNotHoldIsOutOfReach() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            // The notification extension holds no group: the group's container is not its own.
            _ = try device.run(as: reader.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: ReaderTargets.group) }
            let path = try device.containerLocation(for: ReaderTargets.group).appendingPathComponent("Library/Caches/x").path
            let refused = try await device.run(built: "SandboxProbe", ["write", path, "x"], as: reader.notification)
            #expect(refused.outputLines == ["error NSCocoaErrorDomain 513 underlying none"], "\(refused)")
            let allowed = try await device.run(built: "SandboxProbe", ["write", path, "x"], as: reader.widget)
            #expect(allowed.outputLines == ["ok " + path], "\(allowed)")
        }
    }

    @Test func theBundleIsReadOnlyAndScratchIsReadable() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let seen = values(try await device.run(built: "SandboxProbe", ["identity"], as: reader.app).requireSuccess())
            let bundle = try #require(seen["bundleURL"])
            let write = try await device.run(built: "SandboxProbe", ["write", bundle + "/Info.plist", "x"], as: reader.app)
            #expect(write.outputLines == ["error NSCocoaErrorDomain 513 underlying none"], "\(write)")
            let (file, _) = try device.makeScratchFile(named: "shared.txt", randomBytes: 4)
            let read = try await device.run(built: "SandboxProbe", ["read", file.path], as: reader.share)
            #expect(read.outputLines.first?.hasPrefix("ok") == true, "a file handed to the extension can be read: \(read)")
            let overwrite = try await device.run(built: "SandboxProbe", ["write", file.path, "x"], as: reader.share)
            #expect(overwrite.outputLines == ["error NSCocoaErrorDomain 513 underlying none"], "\(overwrite)")
        }
    }
}

/// A kernel without Landlock, played by forcing the probe to fail in a process of
/// its own (the probe's answer is kept for the life of a process).
@Suite(.tags(.multiprocess)) struct NoLandlockTests {
    @Test func withoutLandlockTargetsRunUnenforcedAndTheDeviceSaysSoOnce() async throws {
        let probe = try SimulatedDevice.requireBuiltExecutable(named: "SandboxProbe")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("NoLandlock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let target = scratch.appendingPathComponent("written-outside.txt")
        var environment = ProcessInfo.processInfo.environment
        environment[KernelSandbox.probeEnvironmentKey] = "unavailable"
        let outcome = try await LaunchedProcess.run(probe, ["launch-twice", target.path], environment: environment)
        #expect(outcome.succeeded, "\(outcome)")
        #expect(outcome.outputLines == ["outcome ok " + target.path, "outcome ok " + target.path], "\(outcome)")
        let lines = outcome.standardError.split(separator: "\n").filter { $0.contains("the sandbox is not enforced") }
        #expect(lines.count == 1, "said once: \(outcome.standardError)")
        #expect(lines.first?.contains("Landlock is unavailable (landlock_create_ruleset: ENOSYS") == true)
        #expect(lines.first?.contains(".requiresSandbox(.fail)") == true)
        // With Landlock (this process's probe is not forced), the same launch is refused.
        if KernelSandbox.isAvailable {
            let enforced = try await LaunchedProcess.run(probe, ["launch-twice", target.path + ".2"])
            #expect(enforced.outputLines.allSatisfy { $0.contains("513") }, "\(enforced)")
        }
    }
}

/// Item 5: a target that fails because it wrote outside everything it may reach is
/// named in the failure report, with what it could reach.
@Suite(.tags(.multiprocess), .simulatedDevices, .requiresSandbox(.fail)) struct SandboxFailureReportTests {
    @Test func theFailureReportNamesTheTargetAndItsSandbox() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            let home = try reader.share.dataContainer(on: device)
            let outside = device.outside.appendingPathComponent("articles.json")
            let outcome = try await device.run(built: "SandboxProbe", ["save", outside.path, "[]"], as: reader.share)
            #expect(!outcome.succeeded)
            do {
                try outcome.requireSuccess()
                Issue.record("the write outside succeeded")
            } catch SimulationError.processFailed(let failure) {
                let report = failure.description
                #expect(report.contains("as ReaderShare (share extension com.example.reader.share"), "\(report)")
                #expect(report.contains("could not save \(outside.path)"), "\(report)")
                #expect(report.contains("It ran in its sandbox (Landlock): ReaderShare may write only its data container \(home.home.path), the containers of \(ReaderTargets.group)"), "\(report)")
                #expect(report.contains("NSCocoaErrorDomain 513"), "\(report)")
            }
            // A target that succeeds has no such paragraph.
            let fine = try await device.run(built: "SandboxProbe", ["save", home.documents.appendingPathComponent("a.json").path, "[]"], as: reader.share)
            #expect(fine.succeeded && !fine.description.contains("sandbox"), "\(fine)")
        }
    }

    /// `APPGROUP_SANDBOX=off` turns the sandbox off for a run: what is reported
    /// (the availability, every failure) says so, never "enforced".
    @Test func aRunWithTheSandboxTurnedOffSaysSo() async throws {
        try await KernelSandbox.$modeOverride.withValue("off") {
            #expect("\(KernelSandbox.availability)" == "not enforced: it is turned off for this run (APPGROUP_SANDBOX=off)")
            #expect(KernelSandbox.unenforcedMessage?.contains("Unset APPGROUP_SANDBOX") == true)
            try await SimulatedDevice.with { device in
                let reader = try ReaderTargets()
                let outside = device.outside.appendingPathComponent("articles.json")
                let escaped = try await device.run(built: "SandboxProbe", ["save", outside.path, "[]"], as: reader.share)
                #expect(escaped.succeeded, "with the sandbox off, the write outside succeeds: \(escaped)")
                let missing = device.outside.appendingPathComponent("no-such-folder/articles.json")
                let failed = try await device.run(built: "SandboxProbe", ["save", missing.path, "[]"], as: reader.share)
                #expect(!failed.succeeded)
                #expect(failed.description.contains("It ran without its sandbox (it is turned off for this run (APPGROUP_SANDBOX=off))"),
                        "\(failed)")
            }
        }
    }
}

/// The sandbox must not take from a target what a developer needs to debug it.
@Suite(.tags(.multiprocess, .killed), .simulatedDevices, .requiresSandbox(.fail)) struct SandboxDebuggingTests {
    @Test func aCrashingTargetStillPrintsItsBacktrace() async throws {
        try await SimulatedDevice.with { device in
            let reader = try ReaderTargets()
            // As the same executable prints it without a sandbox (the runtime's
            // backtracer may be turned off in this environment: then neither does).
            let bare = try await device.run(built: "SandboxProbe", ["crash"], as: reader.app, sandbox: .unenforced)
            let sandboxed = try await device.run(built: "SandboxProbe", ["crash"], as: reader.app)
            #expect(bare.signal != nil && sandboxed.signal != nil)
            let printed = bare.standardError.contains("*** Program crashed")
            #expect(sandboxed.standardError.contains("*** Program crashed") == printed, "\(sandboxed.standardError)")
            #expect(!sandboxed.standardError.contains("Backtracing from") || !sandboxed.standardError.contains("... failed ***"), "\(sandboxed.standardError)")
        }
    }
}
