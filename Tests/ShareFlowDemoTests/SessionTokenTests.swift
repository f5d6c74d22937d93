import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import DeviceTestSupport
import TestSupport

/// The seeds' keychain step, with real processes: the app publishes the user's
/// session token in the shared keychain access group, and the share extension
/// reads it before it shares. Nothing is shared without it, and the token never
/// appears in anything a process prints.
@Suite(.tags(.multiprocess), .serialized, .dedicatedThreads) struct SessionTokenTests {
    let device: SimulatedDevice
    let notes: NotesExample
    let binary: URL

    init() throws {
        device = try SimulatedDevice(name: "SessionTokenTests")
        notes = try NotesExample()
        binary = try Demo.binary()
    }

    @Test func theExtensionReadsTheTokenTheAppPublishedThenShares() throws {
        defer { device.remove() }
        let token = "tok-\(UUID().uuidString)"
        let app = try device.spawn(binary, Demo.app(["--publish-token", token]), as: notes.app)
        #expect(app.succeeded, "\(app.standardError)")
        #expect(app.standardError.contains("published a session token (\(token.utf8.count) bytes) in keychain access group \(NotesExample.keychainAccessGroup)"))

        let share = try device.spawn(binary, Demo.share("https://example.com/with-token") + ["--require-token"], as: notes.shareExtension)
        #expect(share.succeeded, "\(share.standardError)")
        #expect(share.outputLines.first == "session token: \(token.utf8.count) bytes")
        #expect(Demo.shared(share.outputLines).keys.contains("https://example.com/with-token"))

        let drained = try device.spawn(binary, Demo.app(), as: notes.app)
        #expect(Demo.urls(Demo.received(drained.outputLines)) == ["https://example.com/with-token"])
        for output in [app.standardOutput, app.standardError, share.standardOutput, share.standardError, drained.standardOutput] {
            #expect(!output.contains(token), "the token leaked into a process's output")
        }
    }

    @Test func withoutAPublishedTokenTheExtensionSharesNothing() throws {
        defer { device.remove() }
        let share = try device.spawn(binary, Demo.share("https://example.com/no-token") + ["--require-token"], as: notes.shareExtension)
        #expect(share.status == 1)
        #expect(share.standardError.contains("no session token in keychain access group \(NotesExample.keychainAccessGroup)"))
        #expect(share.standardError.split(separator: "\n").count == 1)
        let drained = try device.spawn(binary, Demo.app(), as: notes.app)
        #expect(drained.succeeded)
        #expect(Demo.received(drained.outputLines).isEmpty)
    }

    @Test func anExtensionWithoutKeychainSharingIsRefusedWithMissingEntitlement() throws {
        defer { device.remove() }
        let app = try device.spawn(binary, Demo.app(["--publish-token", "tok-hidden"]), as: notes.app)
        #expect(app.succeeded, "\(app.standardError)")
        // In the App Group, but without the Keychain Sharing capability.
        let groupOnly = try SimulatedTarget(name: "share extension without Keychain Sharing", kind: .shareExtension,
                                            teamIdentifier: NotesExample.teamIdentifier, bundleIdentifier: "ai.systenics.notes.share",
                                            applicationGroups: [NotesExample.groupIdentifier])
        let share = try device.spawn(binary, Demo.share("https://example.com/denied") + ["--require-token", "--token-group", NotesExample.keychainAccessGroup],
                                     as: groupOnly)
        #expect(share.status == 1)
        #expect(share.standardError.contains("-34018"), "\(share.standardError)")
        #expect(share.standardError.contains(NotesExample.keychainAccessGroup))
        #expect(!share.standardError.contains("tok-hidden"))
        let drained = try device.spawn(binary, Demo.app(), as: notes.app)
        #expect(Demo.received(drained.outputLines).isEmpty)
    }
}
