// snippet.hide
// The XCTest form of the first test, as the AppGroupTesting overview shows it.
// snippet.show
import AppGroupTesting
import NotesShared
import XCTest

final class FirstXCTests: XCTestCase {
    func testTheAppReceivesTheShare() throws {
        guard NotesTargets.canRun else { throw XCTSkip(NotesTargets.whyNot) }
        let notes = try NotesTargets()                       // the targets, from their .entitlements files
        let device = try makeSimulatedDevice(name: "Notes")  // ends with the test, kept if it failed
        try device.spawn(built: "NotesShareExtension", ["share", "https://example.com"],
                         as: notes.shareExtension).requireSuccess()
        let launch = try device.spawn(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
        XCTAssertEqual(launch.outputLines.first, "received https://example.com")
    }
}

/// The XCTest form of a test that needs the kernel's sandbox, as TheSandbox article shows it.
final class SandboxXCTests: XCTestCase {
    func testTheExtensionCannotReadTheAppsDraft() throws {
        guard NotesTargets.canRun else { throw XCTSkip(NotesTargets.whyNot) }
        try requireSandbox(.skip)   // unenforced, the extension would read the draft
        let notes = try NotesTargets()
        let device = try makeSimulatedDevice(name: "Notes")
        let draft = try notes.app.dataContainer(on: device).documents.appendingPathComponent("Draft.txt")
        try device.spawn(built: "NotesApp", ["save-draft", "Half a thought"], as: notes.app).requireSuccess()
        let refused = try device.spawn(built: "NotesShareExtension", ["share-file", draft.path], as: notes.shareExtension)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.standardError.contains("NSCocoaErrorDomain") && refused.standardError.contains("257"), "\(refused)")
    }
}
