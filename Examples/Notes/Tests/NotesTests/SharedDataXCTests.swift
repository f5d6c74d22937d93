import AppGroupTesting
import Foundation
import NotesShared
import XCTest

/// The group's other shared data with real processes (XCTest): a target
/// without the group, the widget's snapshot, the keychain token.
///
/// `makeSimulatedDevice()` ends the device with the test, so that
/// `APPGROUP_KEEP_DEVICE=on-failure swift test` keeps the device of a failing test.
final class SharedDataXCTests: XCTestCase {
    private var notes: NotesTargets!
    private var device: SimulatedDevice!

    override func setUpWithError() throws {
        guard NotesTargets.canRun else { throw XCTSkip(NotesTargets.whyNot) }
        notes = try NotesTargets()
        device = try makeSimulatedDevice(name: "Notes")
    }

    func testTheExtensionReadsTheSessionTokenTheAppPublished() throws {
        let none = try device.spawn(built: "NotesShareExtension", ["session"], as: notes.shareExtension).requireSuccess()
        XCTAssertEqual(none.outputLines, ["session none"])

        for token in ["first-token", "second-token"] {
            try device.spawn(built: "NotesApp", ["sign-in", token], as: notes.app).requireSuccess()
            let read = try device.spawn(built: "NotesShareExtension", ["session"], as: notes.shareExtension).requireSuccess()
            XCTAssertEqual(read.outputLines, ["session \(token)"])
        }
    }

    func testATargetWithoutTheGroupFailsAsOnIOS() throws {
        // What this test provokes on purpose (a nil container, a private suite) is not
        // printed: silenced for this test and the processes it starts, not for others.
        try silencingDiagnostics(.notEntitled, .privateSuite) {
            // In-process: the answers the extension's own process gets.
            try notes.shareExtensionWithoutGroup.run(on: device) {
                XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: NotesGroup.identifier))
                XCTAssertThrowsError(try NotesGroup.containerURL()) { error in
                    guard case NotesError.appGroupUnavailable(group: NotesGroup.identifier) = error else {
                        return XCTFail("unexpected error \(error)")
                    }
                }
            }

            let share = try device.spawn(built: "NotesShareExtension", ["share", "https://example.com/nowhere"],
                                         as: notes.shareExtensionWithoutGroup)
            XCTAssertEqual(share.status, 1)
            XCTAssertTrue(share.standardError.contains("No container for the App Group group.ai.systenics.notes"), "\(share)")

            // UserDefaults(suiteName:) gave the extension a private suite: it reads its
            // own value back, and the app sees neither the setting nor the share.
            let remembered = try device.spawn(built: "NotesShareExtension", ["last-shared"], as: notes.shareExtensionWithoutGroup)
            XCTAssertEqual(try remembered.requireSuccess().outputLines, ["last shared https://example.com/nowhere"])
            XCTAssertEqual(try notes.app.run(on: device) { try ShareQueue().peek() }, [])
            let launch = try device.spawn(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            XCTAssertEqual(launch.outputLines, ["notes 0", "last shared none"])
        }
    }

    func testTheWidgetReadsWhatTheAppWrote() throws {
        let before = try device.spawn(built: "NotesWidget", ["timeline"], as: notes.widget).requireSuccess()
        XCTAssertEqual(before.outputLines, ["no notes yet"])

        for page in 1...4 {
            try device.spawn(built: "NotesShareExtension", ["share", "https://example.com/\(page)"], as: notes.shareExtension).requireSuccess()
        }
        // The widget shows what the app published, not what waits in the queue.
        let queued = try device.spawn(built: "NotesWidget", ["timeline"], as: notes.widget).requireSuccess()
        XCTAssertEqual(queued.outputLines, ["no notes yet"])

        try device.spawn(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
        let after = try device.spawn(built: "NotesWidget", ["timeline"], as: notes.widget).requireSuccess()
        XCTAssertEqual(after.outputLines, ["notes 4", "latest https://example.com/4",
                                           "latest https://example.com/3", "latest https://example.com/2"])
    }
}
