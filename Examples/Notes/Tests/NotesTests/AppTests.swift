import AppGroupTesting
import Foundation
import NotesShared
import Testing

/// Each target runs as an app: from its own bundle (whose Info.plist, expanded with
/// Config/Notes.xcconfig, names the App Group), in its own data container, inside
/// its sandbox.
@Suite(.simulatedDevices, .enabled(if: NotesTargets.canRun, Comment(rawValue: NotesTargets.whyNot)))
struct AppTests {
    let notes: NotesTargets

    init() throws {
        notes = try NotesTargets()
    }

    @Test func eachTargetReadsItsGroupFromItsOwnInfoPlist() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            for (target, host) in [(notes.app, "NotesApp"), (notes.shareExtension, "NotesShareExtension"), (notes.widget, "NotesWidget")] {
                let about = try await device.run(built: host, ["about"], as: target).requireSuccess()
                let documents = try target.dataContainer(on: device).documents.path
                #expect(about.outputLines == ["bundle \(target.bundleIdentifier)", "group \(NotesGroup.identifier)", "documents \(documents)"])
            }
            // The identity the tests built from the same files agrees.
            #expect(notes.app.entitlements.applicationGroups.map(\.rawValue) == [NotesGroup.identifier])
            #expect(notes.app.infoDictionary["AppGroup"] as? String == NotesGroup.identifier)
        }
    }

    /// Needs the kernel's sandbox: unenforced, the extension would read the draft.
    @Test(.requiresSandbox(.fail)) func aDraftStaysInTheAppsOwnDocuments() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let saved = try await device.run(built: "NotesApp", ["save-draft", "Half a thought"], as: notes.app).requireSuccess()
            let appDocuments = try notes.app.dataContainer(on: device).documents
            #expect(saved.outputLines == ["saved \(appDocuments.appendingPathComponent("Draft.txt").path)"])
            #expect(try String(contentsOf: appDocuments.appendingPathComponent("Draft.txt"), encoding: .utf8) == "Half a thought")
            // The extension has a Documents of its own, and the app's is out of its reach.
            let extensionDocuments = try notes.shareExtension.dataContainer(on: device).documents
            #expect(try FileManager.default.contentsOfDirectory(atPath: extensionDocuments.path).isEmpty)
            #expect(extensionDocuments != appDocuments)
            let draft = appDocuments.appendingPathComponent("Draft.txt")
            let refused = try await device.run(built: "NotesShareExtension", ["share-file", draft.path], as: notes.shareExtension)
            #expect(refused.status == 1 && refused.standardError.contains("NSCocoaErrorDomain") && refused.standardError.contains("257"), "\(refused)")
            // What the share sheet hands over (the device's scratch folder) is readable.
            let (handed, _) = try device.makeScratchFile(named: "Article.txt", randomBytes: 16)
            let shared = try await device.run(built: "NotesShareExtension", ["share-file", handed.path], as: notes.shareExtension).requireSuccess()
            #expect(shared.outputLines == ["shared \(handed.absoluteString)"])
        }
    }
}
