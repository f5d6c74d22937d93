import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import DeviceTestSupport
import TestSupport

/// `path`, `list` and `pending` against containers made by real processes.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct InspectionTests {
    let group = CLIFixture.group

    @Test func pathPrintsTheContainer() throws {
        let fixture = try CLIFixture()
        #expect(try fixture.succeed(["path", group]) == fixture.container.path + "\n")
        // --root wins over APP_GROUP_CONTAINERS_ROOT.
        let other = try SimulatedDevice(name: "AppGroupCLITests-other")
        defer { other.remove() }
        let outcome = try fixture.appgroup(["path", "--root", fixture.device.root.path, group],
                                           environment: [ContainerResolver.rootEnvironmentKey: other.root.path])
        #expect(outcome.succeeded && outcome.standardOutput == fixture.container.path + "\n", "\(outcome.standardError)")
    }

    /// Shares `count` items as the Notes share extension, through the demo binary.
    func share(_ fixture: CLIFixture, _ url: String, count: Int = 1, file: URL? = nil) throws {
        var arguments = ["extension", "--group", group, "--url", url, "--count", String(count)]
        if let file { arguments += ["--file", file.path] }
        let outcome = try fixture.device.spawn(try CLIFixture.binary("ShareFlowDemo"), arguments, as: fixture.notes.shareExtension)
        #expect(outcome.succeeded, "the extension failed: \(outcome.standardError)")
    }

    @Test func pendingListsItemsWithoutConsumingThem() throws {
        let fixture = try CLIFixture()
        #expect(try fixture.succeed(["pending", group]) == "no pending items in the share inbox of \(group)\n")
        let clipping = fixture.device.scratch.appendingPathComponent("clipping.txt")
        try Data("twelve bytes".utf8).write(to: clipping)
        try share(fixture, "https://example.com/articles", count: 2)
        try share(fixture, "https://example.com/with-file", file: clipping)

        let text = try fixture.succeed(["pending", group])
        #expect(text.contains("#1  public.url") && text.contains("from ai.systenics.notes.share"))
        #expect(text.contains("url: https://example.com/articles/1") && text.contains("url: https://example.com/articles/2"))
        #expect(text.contains("attachment: clipping.txt (12 bytes)"))

        let items = try #require(try fixture.json(["pending", group]) as? [[String: Any]])
        #expect(items.map { $0["sequence"] as? Int } == [1, 2, 3])
        #expect(items.map { $0["url"] as? String } == ["https://example.com/articles/1", "https://example.com/articles/2", "https://example.com/with-file"])
        #expect(items.allSatisfy { $0["sender"] as? String == "ai.systenics.notes.share" && $0["kind"] as? String == "public.url" })
        let attachments = try #require(items[2]["attachments"] as? [[String: Any]])
        #expect(attachments.count == 1 && attachments[0]["name"] as? String == "clipping.txt" && attachments[0]["bytes"] as? Int == 12)

        // Listing twice changes nothing, and the app still receives every item, attachment included.
        #expect(try fixture.json(["pending", group]) as? [[String: Any]] != nil)
        let app = try fixture.device.spawn(try CLIFixture.binary("ShareFlowDemo"), ["app", "--group", group, "--json"], as: fixture.notes.app)
        #expect(app.succeeded, "\(app.standardError)")
        let received = app.outputLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(received.compactMap { $0["url"] as? String } == ["https://example.com/articles/1", "https://example.com/articles/2", "https://example.com/with-file"])
        #expect(received.last?["fileBytes"] as? Int == 12)
        #expect(try fixture.json(["pending", group]) as? [Any] != nil)
        #expect((try fixture.json(["pending", group]) as? [Any])?.isEmpty == true)
    }

    @Test func listShowsGroupsSuitesPendingAndBytes() throws {
        let fixture = try CLIFixture()
        // A second group, with a suite and no inbox; the app's private container is not a group.
        let second = "group.ai.systenics.other"
        let owner = try SimulatedTarget(name: "Other", kind: .app, teamIdentifier: NotesExample.teamIdentifier,
                                        bundleIdentifier: "ai.systenics.other", applicationGroups: [second])
        try fixture.device.run(as: owner) { resolver in
            try SharedDefaults(requiringSuiteName: second, resolver: resolver).save(Data(count: 1000), forKey: "blob")
            _ = try SharedDefaults(requiringSuiteName: "private", resolver: resolver).save(1, forKey: "k")
        }
        try fixture.appDefaults().save("v", forKey: "k")
        try fixture.succeed(["defaults", "write", group, "--suite", "Extras", "k", "v"])
        try share(fixture, "https://example.com/a", count: 3)

        let entries = try #require(try fixture.json(["list"]) as? [[String: Any]])
        #expect(entries.map { $0["group"] as? String } == [group, second])
        let notes = entries[0], other = entries[1]
        #expect(notes["suites"] as? [String] == ["Extras", group])
        #expect(notes["pending"] as? Int == 3)
        #expect(notes["path"] as? String == fixture.container.path)
        #expect(other["suites"] as? [String] == [second])
        #expect(other["pending"] as? Int == 0)
        // Bytes are the regular files' sizes: at least the suite holding 1000 bytes of data.
        let otherSuite = try fixture.device.containerLocation(for: second).appendingPathComponent("Library/Preferences/\(second).plist")
        let suiteSize = try #require(try FileManager.default.attributesOfItem(atPath: otherSuite.path)[.size] as? Int)
        #expect(suiteSize > 1000 && other["bytes"] as? Int == suiteSize)
        #expect((notes["bytes"] as? Int ?? 0) > 0)

        let text = try fixture.succeed(["list"])
        #expect(text.contains("\(group)\n    path:    \(fixture.container.path)\n    suites:  Extras, \(group)\n    pending: 3\n"))
        #expect(text.contains("\(second)\n") && !text.contains("Applications"))
        // Listing consumed nothing.
        #expect(try fixture.json(["list"]) as? [[String: Any]] != nil)
        #expect((try fixture.json(["pending", group]) as? [Any])?.count == 3)
    }
}
