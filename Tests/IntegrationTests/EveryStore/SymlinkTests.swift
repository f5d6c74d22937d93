import AppGroupTesting
import AppGroupContainer
import Foundation
import SharedDefaults
import Testing
import ShareInbox
import DeviceTestSupport
import TestSupport

/// Symbolic links planted inside the root, pointing outside it: refused, and
/// nothing is ever written outside the root.
@Suite("Planted symbolic links", .tags(.hostile), .dedicatedThreads)
struct SymlinkTests {
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
        #expect(throws: ShareInboxError.self) { try ShareInbox(groupIdentifier: Sandbox.group, resolver: resolver) }
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
        #expect(throws: ShareInboxError.self) { try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver()) }
        expectUntouched(sandbox, [])
    }
}
