import AppGroupTesting
import Foundation
import NotesShared
import Testing

/// Code run in the test process as one target, then another (identity scopes):
/// the samples of the IdentityScopes article.
@Suite(.simulatedDevices, .enabled(if: NotesTargets.canRun, Comment(rawValue: NotesTargets.whyNot)))
struct ScopeTests {
    let notes: NotesTargets

    init() throws {
        notes = try NotesTargets()
    }

    @Test func asTheExtensionThenAsTheApp() throws {
        try SimulatedDevice.with(name: "Notes") { device in
            let url = try #require(URL(string: "https://example.com/in-process"))
            let shared = try notes.shareExtension.run(on: device) { try ShareExtension.share(url) }   // the code under test, unchanged
            let waiting = try notes.app.run(on: device) { try ShareQueue().peek() }   // as the app
            #expect(waiting == [shared])
        }
    }

    @Test func asTheExtensionThenAsTheAppInAnAsyncTest() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let url = try #require(URL(string: "https://example.com/in-process"))
            let shared = try await notes.shareExtension.run(on: device) { () async throws in try ShareExtension.share(url) }
            let waiting = try await device.run(as: notes.app) { _ async throws in try ShareQueue().peek() }
            #expect(waiting == [shared])
        }
    }

    @Test func workHoppedToAQueueCarriesTheScope() throws {
        try SimulatedDevice.with(name: "Notes") { device in
            let url = try #require(URL(string: "https://example.com/hopped"))
            try notes.shareExtension.run(on: device) { _ = try ShareExtension.share(url) }
            // snippet.hide
            let done = DispatchSemaphore(value: 0)
            // snippet.show
            try notes.app.run(on: device) {
                let scope = try IdentityScope.active
                DispatchQueue.global().async {
                    IdentityScope.run(scope) { _ = try? NotesLibrary().receiveShares() }   // as the app, on another thread
                    // snippet.hide
                    done.signal()
                    // snippet.show
                }
            }
            // snippet.hide
            #expect(done.wait(timeout: .now() + 60) == .success, "the hopped work never ran")
            let notesNow = try notes.app.run(on: device) { try NotesLibrary().notes() }
            #expect(notesNow.map(\.url) == [url])
            // snippet.show
        }
    }
}
