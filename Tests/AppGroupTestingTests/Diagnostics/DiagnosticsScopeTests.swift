import AppGroupTesting
import Foundation
import Testing
import TestSupport
import XCTest

/// A diagnostic names the simulated target and its device (not the
/// test bundle), and a test silences the kinds it provokes on purpose, for itself
/// only: its task, the tasks it starts, the processes its devices start.
@Suite(.tags(.multiprocess), .simulatedDevices) struct DiagnosticsScopeTests {
    static let notEntitledLine = "containerURL(forSecurityApplicationGroupIdentifier: \"\(ReaderTargets.group)\") returned nil"

    /// The share extension without the group asks for the group's container in its own process.
    static func askForTheContainer(on device: SimulatedDevice) async throws -> ProcessOutcome {
        let outsider = try SimulatedTarget(name: "ReaderShareWithoutGroup", kind: .shareExtension, teamIdentifier: ReaderTargets.team,
                                           bundleIdentifier: "com.example.reader.share", applicationGroups: [])
        let outcome = try await device.run(built: "SandboxProbe", ["write-group", ReaderTargets.group, "x", "1"], as: outsider).requireSuccess()
        #expect(outcome.outputLines == ["nil container"])
        return outcome
    }

    @Test func aProcessNamesItsTargetAndDevice() async throws {
        try await SimulatedDevice.with(name: "Diagnostics") { device in
            let outcome = try await Self.askForTheContainer(on: device)
            let speaker = "[ReaderShareWithoutGroup (com.example.reader.share) on device \(device.directory.path)]"
            #expect(outcome.standardError.contains("\(speaker) \(Self.notEntitledLine)"), "\(outcome.standardError)")
        }
    }

    @Test func codeRunAsATargetNamesItsTargetAndDevice() throws {
        try SimulatedDevice.with(name: "Diagnostics") { device in
            let share = try ReaderTargets().share
            let speaker = share.run(on: device) { Diagnostics.speaker }
            #expect(speaker == "ReaderShare (com.example.reader.share) on device \(device.directory.path)")
            // Outside the scope: the test process itself, by its name.
            #expect(Diagnostics.speaker == ProcessInfo.processInfo.processName)
        }
    }

    @Test func silencingReachesTheProcessesTheTestStarts() async throws {
        try await SimulatedDevice.with(name: "Diagnostics") { device in
            let silenced = try await Diagnostics.silencing([.notEntitled]) { try await Self.askForTheContainer(on: device) }
            #expect(!silenced.standardError.contains(Self.notEntitledLine), "\(silenced.standardError)")
            // Another kind silenced leaves this one loud.
            let other = try await Diagnostics.silencing([.privateSuite, .lockWait]) { try await Self.askForTheContainer(on: device) }
            #expect(other.standardError.contains(Self.notEntitledLine), "\(other.standardError)")
            // And after the silencing call, the same process speaks again.
            let after = try await Self.askForTheContainer(on: device)
            #expect(after.standardError.contains(Self.notEntitledLine), "\(after.standardError)")
        }
    }

    @Test(.silencingDiagnostics(.notEntitled)) func theTraitSilencesItsTestOnly() async throws {
        #expect(Diagnostics.silencedKinds.contains(.notEntitled))
        // A detached task is not the test's: it is not silenced.
        let detached = await Task.detached { Diagnostics.silencedKinds }.value
        #expect(!detached.contains(.notEntitled))
        // A child task is.
        async let child = Diagnostics.silencedKinds
        #expect(await child.contains(.notEntitled))
        try await SimulatedDevice.with(name: "Diagnostics") { device in
            let outcome = try await Self.askForTheContainer(on: device)
            #expect(!outcome.standardError.contains(Self.notEntitledLine), "\(outcome.standardError)")
        }
    }

    @Test func testsRunningBesideASilencedOneStillSpeak() async throws {
        // Two tasks side by side, as parallel tests are: only the silenced one is quiet.
        try await SimulatedDevice.with(name: "Diagnostics") { device in
            async let quiet = Diagnostics.silencing([.notEntitled]) { try await Self.askForTheContainer(on: device) }
            async let loud = Self.askForTheContainer(on: device)
            let (silenced, spoken) = try await (quiet, loud)
            #expect(!silenced.standardError.contains(Self.notEntitledLine), "\(silenced.standardError)")
            #expect(spoken.standardError.contains(Self.notEntitledLine), "\(spoken.standardError)")
        }
    }

    @Test func anIdentityScopeSilencesThroughItsEnvironment() throws {
        try SimulatedDevice.with(name: "Diagnostics") { device in
            let share = try ReaderTargets().share
            let inScope = share.run(on: device, environment: ["APP_GROUP_QUIET": "not-entitled,private-suite"]) { Diagnostics.silencedKinds }
            #expect(inScope == [.notEntitled, .privateSuite])
            #expect(!Diagnostics.silencedKinds.contains(.notEntitled))
        }
    }
}

/// The XCTest side: `silencingDiagnostics(_:body:)`.
final class DiagnosticsScopeXCTests: XCTestCase {
    func testSilencingReachesTheProcessesTheTestStarts() throws {
        let device = try makeSimulatedDevice(name: "Diagnostics")
        let outsider = try SimulatedTarget(name: "ReaderShareWithoutGroup", kind: .shareExtension, teamIdentifier: ReaderTargets.team,
                                           bundleIdentifier: "com.example.reader.share", applicationGroups: [])
        let arguments = ["write-group", ReaderTargets.group, "x", "1"]
        let quiet = try silencingDiagnostics(.notEntitled) {
            try device.spawn(built: "SandboxProbe", arguments, as: outsider).requireSuccess()
        }
        XCTAssertFalse(quiet.standardError.contains(DiagnosticsScopeTests.notEntitledLine), quiet.standardError)
        let loud = try device.spawn(built: "SandboxProbe", arguments, as: outsider).requireSuccess()
        XCTAssertTrue(loud.standardError.contains("[ReaderShareWithoutGroup (com.example.reader.share) on device \(device.directory.path)]"),
                      loud.standardError)
    }
}
