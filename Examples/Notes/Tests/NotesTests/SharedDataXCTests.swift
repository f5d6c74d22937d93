import AppGroupTesting
import Foundation
import NotesShared
import XCTest

/// The group's other shared data with real processes (XCTest): a target
/// without the group, the widget's snapshot, the keychain token.
final class SharedDataXCTests: XCTestCase {
    private var notes: NotesTargets!
    private var device: SimulatedDevice!

    override func setUpWithError() throws {
        try XCTSkipUnless(NotesTargets.canRun, NotesTargets.whyNot)
        notes = try NotesTargets()
        device = try SimulatedDevice(name: "Notes")
    }

    override func tearDown() {
        device?.remove()
    }

    func testATargetWithoutTheGroupFailsAsOnIOS() throws {
        // In-process: the same answers the extension's own process gets.
        try notes.shareExtensionWithoutGroup.run(on: device) {
            XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: NotesGroup.identifier))
            XCTAssertThrowsError(try NotesGroup.containerURL()) { error in
                guard case NotesError.appGroupUnavailable(group: NotesGroup.identifier) = error else {
                    return XCTFail("unexpected error \(error)")
                }
            }
        }

        let share = try device.spawn(.shareExtension, ["share", "https://example.com/nowhere"], as: notes.shareExtensionWithoutGroup)
        XCTAssertEqual(share.status, 1)
        XCTAssertTrue(share.standardError.contains("No container for the App Group group.ai.systenics.notes"), share.standardError)

        // UserDefaults(suiteName:) gave the extension a private suite: it reads its
        // own value back, and the app sees neither the setting nor the share.
        let remembered = try device.spawn(.shareExtension, ["last-shared"], as: notes.shareExtensionWithoutGroup)
        XCTAssertEqual(remembered.outputLines, ["last shared https://example.com/nowhere"])
        XCTAssertEqual(try notes.app.run(on: device) { try ShareQueue().peek() }, [])
        let launch = try device.spawn(.app, ["launch"], as: notes.app)
        XCTAssertTrue(launch.succeeded, launch.standardError)
        XCTAssertEqual(launch.outputLines, ["notes 0", "last shared none"])
    }

    func testTheWidgetReadsWhatTheAppWrote() throws {
        let before = try device.spawn(.widget, ["timeline"], as: notes.widget)
        XCTAssertEqual(before.outputLines, ["no notes yet"], before.standardError)

        for page in 1...4 {
            let share = try device.spawn(.shareExtension, ["share", "https://example.com/\(page)"], as: notes.shareExtension)
            XCTAssertTrue(share.succeeded, share.standardError)
        }
        // The widget shows what the app published, not what waits in the queue.
        XCTAssertEqual(try device.spawn(.widget, ["timeline"], as: notes.widget).outputLines, ["no notes yet"])

        let launch = try device.spawn(.app, ["launch"], as: notes.app)
        XCTAssertTrue(launch.succeeded, launch.standardError)
        let after = try device.spawn(.widget, ["timeline"], as: notes.widget)
        XCTAssertEqual(after.outputLines, ["notes 4", "latest https://example.com/4",
                                           "latest https://example.com/3", "latest https://example.com/2"], after.standardError)
    }

    func testTheExtensionReadsTheSessionTokenTheAppPublished() throws {
        XCTAssertEqual(try device.spawn(.shareExtension, ["session"], as: notes.shareExtension).outputLines, ["session none"])

        for token in ["first-token", "second-token"] {
            let signIn = try device.spawn(.app, ["sign-in", token], as: notes.app)
            XCTAssertTrue(signIn.succeeded, signIn.standardError)
            let read = try device.spawn(.shareExtension, ["session"], as: notes.shareExtension)
            XCTAssertEqual(read.outputLines, ["session \(token)"], read.standardError)
        }
    }
}
