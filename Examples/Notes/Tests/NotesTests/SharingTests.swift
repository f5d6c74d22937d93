import AppGroupTesting
import Foundation
import NotesShared
import Testing

/// The share flow with real processes (Swift Testing): the share extension
/// writes, the app receives, whether it runs at the time or not.
@Suite(.enabled(if: NotesTargets.canRun, Comment(rawValue: NotesTargets.whyNot)))
struct SharingTests {
    let notes: NotesTargets

    init() throws {
        notes = try NotesTargets()
    }

    @Test func theRunningAppReceivesSharesAsTheyArrive() throws {
        let device = try SimulatedDevice(name: "Notes")
        defer { device.remove() }
        let urls = (1...4).map { "https://example.com/article/\($0)" }
        let app = try device.launch(.app, ["run", "--count", "\(urls.count)"], as: notes.app)
        defer { app.kill() }
        // Ready means the queue was read once and is watched: what arrives now
        // reaches the app only through its file presenter.
        try #require(app.waitForLine("ready", timeout: 30), "the app did not start: \(app.standardError)")

        // Four extensions at once, while the app takes from the same queue.
        let shares = try urls.map { try device.launch(.shareExtension, ["share", $0], as: notes.shareExtension) }
        for share in shares {
            let end = share.wait(timeout: 60)
            #expect(end.succeeded, "\(end.standardError)")
        }

        // The app exits by itself once it has received four notes.
        let end = app.wait(timeout: 30)
        #expect(end.succeeded && !end.timedOut, "\(end.standardError)")
        #expect(Set(end.outputLines) == Set(["ready"] + urls.map { "received \($0)" }))
        #expect(end.outputLines.count == urls.count + 1)
    }

    @Test func sharesMadeWhileTheAppIsNotRunningWaitForItsLaunch() throws {
        let device = try SimulatedDevice(name: "Notes")
        defer { device.remove() }
        // The second share must not replace the first; the same URL shared twice is two shares.
        let urls = ["https://example.com/first", "https://example.com/caf%C3%A9?q=a%20b#part", "https://example.com/first"]
        for url in urls {
            let share = try device.spawn(.shareExtension, ["share", url], as: notes.shareExtension)
            #expect(share.succeeded, "\(share.standardError)")
        }

        let launch = try device.spawn(.app, ["launch"], as: notes.app)
        #expect(launch.succeeded, "\(launch.standardError)")
        #expect(launch.outputLines == urls.map { "received \($0)" } + ["notes 3", "last shared \(urls[2])"])

        // Received once: the next launch finds nothing new and keeps the notes.
        let again = try device.spawn(.app, ["launch"], as: notes.app)
        #expect(again.outputLines == ["notes 3", "last shared \(urls[2])"])
    }

    @Test func sharesFromExtensionsRunningAtOnceAreAllKept() throws {
        let device = try SimulatedDevice(name: "Notes")
        defer { device.remove() }
        let urls = (1...12).map { "https://example.com/\($0)" }
        // All started before any is waited for: their read-modify-writes of the
        // queue file overlap unless coordination serialises them.
        let shares = try urls.map { try device.launch(.shareExtension, ["share", $0], as: notes.shareExtension) }
        for share in shares {
            let end = share.wait(timeout: 60)
            #expect(end.succeeded, "\(end.standardError)")
        }

        let launch = try device.spawn(.app, ["launch"], as: notes.app)
        #expect(launch.succeeded, "\(launch.standardError)")
        let received = launch.outputLines.filter { $0.hasPrefix("received ") }
        #expect(Set(received) == Set(urls.map { "received \($0)" }))
        #expect(received.count == urls.count)
    }

    @Test func aDamagedQueueIsReportedAndKept() throws {
        let device = try SimulatedDevice(name: "Notes")
        defer { device.remove() }
        // In-process, as the app: the same code the host executables run, here to find the file.
        let queueFile = try notes.app.run(on: device) { try ShareQueue().fileURL }
        let garbage = Data("{\"not\": \"a queue\"".utf8)
        try garbage.write(to: queueFile)

        let share = try device.spawn(.shareExtension, ["share", "https://example.com/lost?"], as: notes.shareExtension)
        #expect(share.status == 1)
        #expect(share.standardError.contains("\(queueFile.path) is not a list of Notes items"), "\(share.standardError)")
        let launch = try device.spawn(.app, ["launch"], as: notes.app)
        #expect(launch.status == 1)
        #expect(launch.standardError.contains("left unchanged"), "\(launch.standardError)")
        #expect(try Data(contentsOf: queueFile) == garbage)
    }
}
