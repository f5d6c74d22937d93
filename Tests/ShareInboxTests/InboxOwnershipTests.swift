import AppGroupTesting
import AppGroupContainer
import Foundation
import ShareInbox
import Testing
import DeviceTestSupport
import TestSupport

/// Directories another user made, in the share inbox: the inbox makes directories of
/// its own below the container (`Library/Application Support/Inbox` and its
/// `Items`, `Staging`, `Claims`, `Quarantine`). One made beforehand by another user,
/// or writable by others, would let that user plant or take items: refused, or
/// repaired when it is the process's own.
@Suite("Inbox directories of another user", .tags(.hostile), .dedicatedThreads)
struct InboxOwnershipTests {
    static func inboxPath(_ sandbox: Sandbox, _ below: String) -> String {
        sandbox.root.appendingPathComponent(Sandbox.group).appendingPathComponent("Library/Application Support/Inbox")
            .appendingPathComponent(below).standardizedFileURL.path
    }

    @Test("a directory of the inbox made beforehand by another user (0777) is refused, nothing read from it",
          .enabled(if: Privileges.isRoot, "chown to another user needs root (CI runs as root)"),
          arguments: ["..", ".", "Items", "Claims"])
    func foreignDirectoryRefused(_ below: String) throws {
        let sandbox = try Sandbox()
        _ = try sandbox.resolver().requireContainerURL(forSecurityApplicationGroupIdentifier: Sandbox.group)
        let planted = Self.inboxPath(sandbox, below)
        try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
        #expect(chmod(planted, 0o777) == 0 && chown(planted, 65534, 65534) == 0)
        #expect {
            try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        } throws: { error in
            guard case .untrustedDirectory(let path, let owner, _, _)? = (error as? ShareInboxError)?.containerError else { return false }
            return path == planted && owner == 65534
        }
    }

    @Test("the process's own inbox directory left writable by others is repaired to 0700")
    func ownDirectoryRepaired() throws {
        let sandbox = try Sandbox()
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "kept"))
        let items = Self.inboxPath(sandbox, "Items")
        #expect(chmod(items, 0o777) == 0)
        let again = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        #expect((try FileManager.default.attributesOfItem(atPath: items)[.posixPermissions] as? Int) == 0o700)
        var titles: [String] = []
        try again.drain { titles.append($0.title ?? "?") }
        #expect(titles == ["kept"])
    }
}
