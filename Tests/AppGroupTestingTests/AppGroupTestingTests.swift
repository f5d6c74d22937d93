import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import ShareInbox
import DeviceTestSupport
import TestSupport

/// The public testing API behaves as documented.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct AppGroupTestingTests {
    @Test func aDeviceIsFreshAndRemovedAfterwards() throws {
        let notes = try NotesExample()
        var seen: URL?
        try SimulatedDevice.with { device in
            seen = device.root
            #expect(SimulatedDevice.files(under: device.root).isEmpty)
            let container = try device.run(as: notes.app) { resolver in
                try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: NotesExample.groupIdentifier)
            }
            #expect(container.path == device.root.appendingPathComponent(NotesExample.groupIdentifier).path)
            #expect(device.run(as: notes.shareExtensionWithoutGroup) { $0.containerURL(forSecurityApplicationGroupIdentifier: NotesExample.groupIdentifier) } == nil)
        }
        let root = try #require(seen)
        #expect(!FileManager.default.fileExists(atPath: root.deletingLastPathComponent().path))
    }

    @Test func theNotesPresetMatchesTheSeeds() throws {
        let notes = try NotesExample()
        #expect(notes.app.entitlements.applicationIdentifier == "A1B2C3D4E5.ai.systenics.notes")
        #expect(notes.shareExtension.bundleIdentifier == "ai.systenics.notes.share")
        #expect(notes.widget.bundleIdentifier == "ai.systenics.notes.widget")
        for target in [notes.app, notes.shareExtension, notes.widget] {
            #expect(target.entitlements.applicationGroups.map(\.rawValue) == ["group.ai.systenics.notes"])
            #expect(target.entitlements.keychainAccessGroups == ["A1B2C3D4E5.ai.systenics.notes.shared"])
        }
        #expect(notes.shareExtensionWithoutGroup.entitlements.applicationGroups.isEmpty)
    }

    @Test func theEmbeddedEntitlementsAreTheShippedExamples() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples")
        for (name, text) in NotesExample.entitlementsFiles {
            let shipped = try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
            #expect(shipped == text, "Examples/\(name) differs from the copy embedded in NotesExample")
        }
    }

    @Test func aSpawnedProcessRunsAsItsTarget() throws {
        let device = try SimulatedDevice()
        defer { device.remove() }
        let notes = try NotesExample()
        let environment = device.environment(for: notes.widget)
        #expect(environment["APP_GROUP_CONTAINERS_ROOT"] == device.root.path)
        #expect(try Entitlements.fromEnvironment(environment) == notes.widget.entitlements)
        // The demo's extension role, given no identity option, takes the environment's.
        let outcome = try device.spawn(try Demo.binary(), Demo.share("https://example.com/w"), as: notes.widget)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        let items = try device.run(as: notes.app) { resolver -> [ReceivedItem] in
            var items: [ReceivedItem] = []
            try ShareInbox(groupIdentifier: Demo.group, resolver: resolver).drain { items.append($0) }
            return items
        }
        #expect(items.map(\.senderBundleIdentifier) == ["ai.systenics.notes.widget"])
    }

    @Test(.tags(.killed)) func aLaunchedProcessStreamsItsOutputAndEndsAsSignalled() throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let process = try LaunchedProcess(executable: shell, arguments: ["-c", "printf 'one\\ntw'; printf 'o\\nready\\n'; echo oops >&2; exec sleep 60"],
                                          environment: ProcessInfo.processInfo.environment)
        #expect(process.waitForLine("ready", timeout: 30))
        #expect(process.waitForOutput(containing: "one\ntwo", timeout: 30))
        #expect(process.waitForErrorLine(timeout: 30) { $0 == "oops" } != nil)
        #expect(process.outputLines == ["one", "two", "ready"])
        process.kill()
        let end = process.wait(timeout: 30)
        #expect(end.signal == SIGKILL && !end.timedOut && !end.succeeded)
        #expect(end.standardOutput == "one\ntwo\nready\n" && end.standardError == "oops\n")
        process.kill() // ended: nothing is sent, and waiting again gives the same outcome
        #expect(process.wait(timeout: 1) == end)
    }

    @Test(.tags(.killed)) func aProcessPastItsDeadlineIsKilledAndSaysSo() throws {
        let end = try LaunchedProcess.run(URL(fileURLWithPath: "/bin/sleep"), ["60"], timeout: 0.2)
        #expect(end.timedOut && end.signal == SIGKILL)
        #expect(try LaunchedProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exit 3"]).status == 3)
    }

    @Test func aMissingProductIsATypedErrorThatSaysHowToBuildIt() {
        let error = #expect(throws: SimulationError.self) { try LaunchedProcess(built: "NoSuchProduct", arguments: [], environment: [:]) }?.executableNotBuilt
        #expect(error?.name == "NoSuchProduct" && error?.description.contains("swift build") == true)
    }

    @Test func theDeviceHasScratchAndOutsideDirectoriesAndListsFiles() throws {
        try SimulatedDevice.with { device in
            for directory in [device.root, device.scratch, device.outside] {
                #expect(directory.deletingLastPathComponent() == device.directory)
            }
            let (url, data) = try device.makeScratchFile(named: "a.bin", randomBytes: 1000)
            #expect(try Data(contentsOf: url) == data && data.count == 1000)
            try FileManager.default.createDirectory(at: device.scratch.appendingPathComponent("sub"), withIntermediateDirectories: false)
            try Data().write(to: device.scratch.appendingPathComponent("sub/b"))
            #expect(SimulatedDevice.files(under: device.scratch) == ["a.bin", "sub/b"])
            let environment = device.environment(identity: nil, extra: ["X": "1"])
            #expect(environment["APP_GROUP_CONTAINERS_ROOT"] == device.root.path && environment["X"] == "1")
        }
    }
}
