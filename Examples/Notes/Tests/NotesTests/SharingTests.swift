import AppGroupTesting
import Foundation
import NotesShared
import Testing

/// The share flow with real processes (Swift Testing): the share extension
/// writes, the app receives, whether it runs at the time or not.
///
/// `.simulatedDevices` lets each device follow its test's verdict, so that
/// `APPGROUP_KEEP_DEVICE=on-failure swift test` keeps the device of a failing test.
@Suite(.simulatedDevices, .enabled(if: NotesTargets.canRun, Comment(rawValue: NotesTargets.whyNot)))
struct SharingTests {
    let notes: NotesTargets

    init() throws {
        notes = try NotesTargets()
    }

    @Test func sharesMadeWhileTheAppIsNotRunningWaitForItsLaunch() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            // The second share must not replace the first; the same URL shared twice is two shares.
            let urls = ["https://example.com/first", "https://example.com/caf%C3%A9?q=a%20b#part", "https://example.com/first"]
            for url in urls {
                try await device.run(built: "NotesShareExtension", ["share", url], as: notes.shareExtension).requireSuccess()
            }

            let launch = try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            #expect(launch.outputLines == urls.map { "received \($0)" } + ["notes 3", "last shared \(urls[2])"])

            // Received once: the next launch finds nothing new and keeps the notes.
            let again = try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            #expect(again.outputLines == ["notes 3", "last shared \(urls[2])"])
        }
    }

    @Test func theRunningAppReceivesSharesAsTheyArrive() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let urls = (1...4).map { "https://example.com/article/\($0)" }
            let app = try device.launch(built: "NotesApp", ["run", "--count", "\(urls.count)"], as: notes.app)
            defer { app.kill() } // if the test stops early; a no-op once it has exited
            // Ready means the queue was read once and is watched: what arrives now
            // reaches the app only through its file presenter.
            try await app.requireLine("ready")

            // Four extensions at once, while the app takes from the same queue.
            let shares = try urls.map { try device.launch(built: "NotesShareExtension", ["share", $0], as: notes.shareExtension) }
            for share in shares {
                try await share.outcome().requireSuccess()
            }

            // The app exits by itself once it has received four notes.
            let end = try await app.outcome(timeout: 30).requireSuccess()
            #expect(Set(end.outputLines) == Set(["ready"] + urls.map { "received \($0)" }))
            #expect(end.outputLines.count == urls.count + 1)
        }
    }

    @Test func theShareSheetHandsTheExtensionAURLAndTheAppReceivesIt() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let page = NSExtensionItem()
            page.attachments = [NSItemProvider(item: URL(string: "https://example.com/from-the-sheet")! as NSURL, typeIdentifier: "public.url")]
            let outcome = try await device.share([page], to: notes.shareExtension, built: "NotesShareExtension")
            #expect(outcome.returnedItems != nil, "\(outcome)")
            let launch = try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            #expect(launch.outputLines.first == "received https://example.com/from-the-sheet")

            // Nothing to share: the extension cancels with its error.
            let empty = try await device.share([NSExtensionItem()], to: notes.shareExtension, built: "NotesShareExtension")
            guard case .cancelled(let error?) = empty.ending else {
                Issue.record("not cancelled: \(empty)")
                return
            }
            #expect(error.localizedDescription == "nothing to share: no URL")
        }
    }

    @Test func sharesFromExtensionsRunningAtOnceAreAllKept() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            let urls = (1...12).map { "https://example.com/\($0)" }
            // All started before any is waited for: their read-modify-writes of the
            // queue file overlap unless coordination serialises them.
            let shares = try urls.map { try device.launch(built: "NotesShareExtension", ["share", $0], as: notes.shareExtension) }
            for share in shares {
                try await share.outcome().requireSuccess()
            }

            let launch = try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            let received = launch.outputLines.filter { $0.hasPrefix("received ") }
            #expect(Set(received) == Set(urls.map { "received \($0)" }))
            #expect(received.count == urls.count)
        }
    }

    @Test func anAppThatDiedWhileReceivingReceivesEachShareOnce() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            // The files as an app leaves them when it dies after saving its notes
            // and before emptying the queue: the first share is in both.
            let first = SharedItem(url: try #require(URL(string: "https://example.com/saved")))
            let second = SharedItem(url: try #require(URL(string: "https://example.com/waiting")))
            try await notes.app.run(on: device) { () async throws in
                try JSONEncoder().encode([first]).write(to: NotesGroup.dataDirectory().appendingPathComponent("Notes.json"))
                try ShareQueue().append(first)
                try ShareQueue().append(second)
            }

            let launch = try await device.run(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
            #expect(launch.outputLines == ["received https://example.com/waiting", "notes 2", "last shared none"])
            let widget = try await device.run(built: "NotesWidget", ["timeline"], as: notes.widget).requireSuccess()
            #expect(widget.outputLines == ["notes 2", "latest https://example.com/waiting", "latest https://example.com/saved"])
        }
    }

    @Test func aDamagedQueueIsReportedAndKept() async throws {
        try await SimulatedDevice.with(name: "Notes") { device in
            // In-process, as the app: the code the hosts run, here to find the file.
            // An async closure selects the task-bound scope, which never blocks a thread.
            let queueFile = try await notes.app.run(on: device) { () async throws in try ShareQueue().fileURL }
            let garbage = Data("{\"not\": \"a queue\"".utf8)
            try garbage.write(to: queueFile)

            let share = try await device.run(built: "NotesShareExtension", ["share", "https://example.com/lost"], as: notes.shareExtension)
            #expect(share.status == 1)
            #expect(share.standardError.contains("\(queueFile.path) is not a list of Notes items"), "\(share)")
            let launch = try await device.run(built: "NotesApp", ["launch"], as: notes.app)
            #expect(launch.status == 1)
            #expect(launch.standardError.contains("left unchanged"), "\(launch)")
            #expect(try Data(contentsOf: queueFile) == garbage)
        }
    }
}
