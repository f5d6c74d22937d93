import AppGroupTesting
import AppGroupContainer
import Foundation
import SharedDefaults
import Testing
import ShareInbox

/// Symbolic links planted inside the root, pointing outside it: refused, and
/// nothing is ever written outside the root.
@Suite("Planted symbolic links", .dedicatedThreads)
struct SymlinkTests {
    /// A file outside the root, with known content, for links to point at.
    func target(_ sandbox: Sandbox, _ name: String = "victim") throws -> URL {
        let url = sandbox.outside.appendingPathComponent(name)
        try Data("outside".utf8).write(to: url)
        return url
    }

    func expectUntouched(_ sandbox: Sandbox, _ expected: [String]) {
        #expect(sandbox.outsideContents() == expected, "nothing written outside the root")
        for name in expected where !name.contains("/") {
            let url = sandbox.outside.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                #expect((try? Data(contentsOf: url)) == Data("outside".utf8), "\(name) outside the root is unchanged")
            }
        }
    }

    @Test("a link where the suite file belongs: writes and reads refuse it")
    func suiteFileLink() throws {
        let sandbox = try Sandbox()
        let defaults = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        let victim = try target(sandbox)
        try FileManager.default.createSymbolicLink(at: defaults.fileURL, withDestinationURL: victim)
        #expect {
            try defaults.save("x", forKey: "k")
        } throws: { error in
            guard case .fileSystem(_, .unsafePath)? = error as? SharedDefaultsError else { return false }
            return "\(error)".contains("symbolic link")
        }
        #expect(throws: SharedDefaultsError.self) { try defaults.load(forKey: "k") }
        expectUntouched(sandbox, ["victim"])
    }

    @Test("a link where the lock file belongs: refused, the target neither created nor changed")
    func lockFileLink() throws {
        let sandbox = try Sandbox()
        let defaults = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        let lock = try FileCoordinator.lockFileURL(for: defaults.fileURL)
        #expect(lock.deletingLastPathComponent().path == sandbox.root.appendingPathComponent(".coordination").path)
        // A dangling link (the kind that O_CREAT would follow) and a link to a file.
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: sandbox.outside.appendingPathComponent("created"))
        #expect {
            try defaults.save("x", forKey: "k")
        } throws: { error in
            guard case .fileSystem(_, .unsafePath)? = error as? SharedDefaultsError else { return false }
            return "\(error)".contains("symbolic link")
        }
        try FileManager.default.removeItem(at: lock)
        let victim = try target(sandbox)
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: victim)
        #expect(throws: SharedDefaultsError.self) { try defaults.save("x", forKey: "k") }
        expectUntouched(sandbox, ["victim"])
    }

    @Test("a link where a container directory belongs: refused by every API")
    func containerLink() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createSymbolicLink(at: sandbox.root.appendingPathComponent(Sandbox.group), withDestinationURL: sandbox.outside)
        let resolver = sandbox.resolver()
        #expect(resolver.containerURL(forSecurityApplicationGroupIdentifier: Sandbox.group) == nil)
        #expect {
            try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: Sandbox.group)
        } throws: { error in
            guard case .unsafePath? = error as? AppGroupError else { return false }
            return "\(error)".contains("symbolic link")
        }
        #expect(throws: SharedDefaultsError.self) { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: resolver) }
        #expect(throws: AppGroupError.self) { try ShareInbox(groupIdentifier: Sandbox.group, resolver: resolver) }
        expectUntouched(sandbox, [])
    }

    @Test("a link where Library/Preferences or the inbox directory belongs: refused")
    func innerDirectoryLinks() throws {
        let sandbox = try Sandbox()
        let container = try sandbox.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: Sandbox.group)
        let preferences = container.appendingPathComponent("Library/Preferences")
        try FileManager.default.removeItem(at: preferences)
        try FileManager.default.createSymbolicLink(at: preferences, withDestinationURL: sandbox.outside)
        #expect(throws: SharedDefaultsError.self) { try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver()) }
        let support = container.appendingPathComponent("Library/Application Support")
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: support.appendingPathComponent("Inbox"), withDestinationURL: sandbox.outside)
        #expect(throws: AppGroupError.self) { try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver()) }
        expectUntouched(sandbox, [])
    }

    @Test("a link planted among an inbox's items is never delivered and never followed")
    func inboxItemLink() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "real"))
        // Outside: a directory that looks like an item, with a record of its own.
        let fake = sandbox.outside.appendingPathComponent("fake", isDirectory: true)
        try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
        let record = #"{"version":1,"title":"planted","kind":"public.url","date":0,"attachments":[]}"#
        try Data(record.utf8).write(to: fake.appendingPathComponent(ShareInbox.recordFileName))
        let victim = try target(sandbox)
        try FileManager.default.createSymbolicLink(at: inbox.itemsDirectory.appendingPathComponent("00000000000000000002"), withDestinationURL: fake)
        try FileManager.default.createSymbolicLink(at: inbox.itemsDirectory.appendingPathComponent("00000000000000000003"), withDestinationURL: victim)
        // An enqueue must not publish through the links either.
        try inbox.enqueue(SharedItem(title: "after"))
        var titles: [String] = []
        try inbox.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["real", "after"], "only real items are delivered: \(titles)")
        expectUntouched(sandbox, ["fake", "fake/item.json", "victim"])
        #expect((try? Data(contentsOf: fake.appendingPathComponent(ShareInbox.recordFileName))) == Data(record.utf8))
    }

    @Test("an attachment that is a link, or a path through '..', is refused")
    func attachmentLinks() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        let victim = try target(sandbox)
        let link = sandbox.scratch.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        #expect(throws: ShareInboxError.self) { try inbox.enqueue(SharedItem(title: "t", attachments: [.init(fileURL: link)])) }
        #expect(try inbox.pendingCount() == 0)
        expectUntouched(sandbox, ["victim"])
    }
}
