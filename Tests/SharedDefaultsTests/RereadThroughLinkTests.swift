import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import DeviceTestSupport
import TestSupport

/// A read after another process's save opens the suite with one
/// openat2(2) that follows no link (instead of a walk from the root, directory by
/// directory). These check that it keeps the walk's guarantees: a link planted
/// below the root is refused at the re-read, even when the link leads to a valid
/// suite file; a root reached through a link (allowed, as configured) still reads,
/// and still refuses a link below it.
@Suite("Re-reads after another process's save, through planted links", .tags(.hostile, .multiprocess), .dedicatedThreads)
struct RereadThroughLinkTests {
    /// Has a ReliabilityProbe save into the group's suite under `root`, as lane `id`
    /// (it sets "w<id>" and increments "lane").
    func saveInAnotherProcess(_ sandbox: Sandbox, root: URL, id: Int) throws {
        let writer = try reliabilityProbe(["defaults-writer", "--suite", Sandbox.group, "--id", "\(id)", "--count", "1"],
                                          environment: sandbox.environment(sandbox.app, root: root))
        let outcome = writer.wait(timeout: 60)
        #expect(outcome.succeeded, "\(outcome.standardError)")
    }

    /// Moves `Library/Preferences` (or the level given) aside and plants a link to
    /// `outside/prefs`, which holds a valid suite whose "lane" is 999.
    func plantLinkToForeignSuite(_ sandbox: Sandbox, root: URL, below: String) throws {
        let container = root.appendingPathComponent(Sandbox.group, isDirectory: true)
        let foreign = sandbox.outside.appendingPathComponent("prefs", isDirectory: true)
        // The link replaces `below`: the foreign suite sits where the path continues.
        let rest = ["Library/Preferences": "", "Library": "Preferences", "": "Library/Preferences"][below] ?? ""
        let suiteDirectory = rest.isEmpty ? foreign : foreign.appendingPathComponent(rest, isDirectory: true)
        try FileManager.default.createDirectory(at: suiteDirectory, withIntermediateDirectories: true)
        let bytes = try PropertyListSerialization.data(fromPropertyList: ["lane": 999], format: .binary, options: 0)
        try bytes.write(to: suiteDirectory.appendingPathComponent(Sandbox.group + ".plist"))
        let replaced = below.isEmpty ? container : container.appendingPathComponent(below, isDirectory: true)
        try FileManager.default.moveItem(at: replaced, to: sandbox.scratch.appendingPathComponent("moved-\(below.count)"))
        try FileManager.default.createSymbolicLink(at: replaced, withDestinationURL: foreign)
    }

    func expectRefusedReread(_ reader: SharedDefaults) {
        #expect {
            _ = try reader.load(forKey: "lane")
        } throws: { error in
            guard case .fileSystem(_, .unsafePath)? = error as? SharedDefaultsError else { return false }
            return true
        }
        #expect(reader.integer(forKey: "lane") != 999, "the suite behind the link is never read")
        #expect(reader.lastError != nil)
    }

    @Test("a link planted below the root after the reader cached the suite: the re-read refuses it, though a suite stands behind it",
          arguments: ["Library/Preferences", "Library", ""])
    func linkBelowRoot(_ below: String) throws {
        let sandbox = try Sandbox()
        let reader = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        try saveInAnotherProcess(sandbox, root: sandbox.root, id: 1)
        #expect(reader.integer(forKey: "lane") == 1)
        try plantLinkToForeignSuite(sandbox, root: sandbox.root, below: below)
        expectRefusedReread(reader)
    }

    @Test("a root reached through a link: re-reads after another process's saves are exact, and a link below it is still refused")
    func rootThroughLink() throws {
        let sandbox = try Sandbox()
        let linkedRoot = sandbox.scratch.appendingPathComponent("root-link", isDirectory: true)
        try FileManager.default.createSymbolicLink(at: linkedRoot, withDestinationURL: sandbox.root)
        let reader = try SharedDefaults(requiringSuiteName: Sandbox.group,
                                        resolver: ContainerResolver(root: linkedRoot, entitlements: sandbox.app))
        for id in 1...3 {
            try saveInAnotherProcess(sandbox, root: linkedRoot, id: id)
            #expect(reader.integer(forKey: "lane") == id, "re-read \(id) through the root's link")
            #expect(reader.dictionary(forKey: "w\(id)")?["check"] as? String == "\(id)-1")
        }
        #expect(reader.lastError == nil)
        try plantLinkToForeignSuite(sandbox, root: linkedRoot, below: "Library/Preferences")
        expectRefusedReread(reader)
        #expect(sandbox.outsideContents().allSatisfy { $0.hasPrefix("prefs") }, "nothing written outside the root")
    }
}
