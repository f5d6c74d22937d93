// snippet.hide
// The first test of README.md and of the AppGroupTesting overview, as they show
// it: self-contained, each target's identity read from its own .entitlements
// file. The other suites build the targets once, in NotesTargets.
// snippet.show
import AppGroupTesting
import Foundation
import NotesShared
import Testing
// snippet.hide
// Linux only: on macOS Apple's Foundation answers the code under test (NotesTargets.whyNot).
#if os(Linux)
// snippet.show

@Test(.simulatedDevices) func theAppSeesWhatTheExtensionShared() throws {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    let settings = try BuildSettings(contentsOf: package.appendingPathComponent("Config/Notes.xcconfig"))
    func target(_ name: String, _ kind: SimulatedTarget.Kind, _ bundleID: String) throws -> SimulatedTarget {
        try SimulatedTarget(name: name, kind: kind,   // the identity Xcode signs the target with
                            entitlementsFile: package.appendingPathComponent("Sources/\(name)/\(name).entitlements"),
                            teamIdentifier: "A1B2C3D4E5", bundleIdentifier: bundleID, buildSettings: settings)
    }
    let app = try target("NotesApp", .app, "ai.systenics.notes")
    let share = try target("NotesShareExtension", .shareExtension, "ai.systenics.notes.share")
    try SimulatedDevice.with { device in          // a fresh device, removed afterwards
        try device.spawn(built: "NotesShareExtension", ["share", "https://example.com"], as: share)
            .requireSuccess()                     // a real process, as the extension
        let waiting = try app.run(on: device) { try ShareQueue().peek() }   // your code, as the app
        #expect(waiting.map(\.url.absoluteString) == ["https://example.com"])
    }
}
// snippet.hide
#endif
