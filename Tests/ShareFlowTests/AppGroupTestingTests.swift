import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import ShareInbox

/// The public testing API behaves as documented.
@Suite struct AppGroupTestingTests {
    @Test func aDeviceIsFreshAndRemovedAfterwards() throws {
        let notes = try NotesExample()
        var seen: URL?
        try SimulatedDevice.with { device in
            seen = device.root
            #expect(try FileManager.default.contentsOfDirectory(atPath: device.root.path).isEmpty)
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
}
