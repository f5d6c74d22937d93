import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

/// `list` never follows a symbolic
/// link (it shows it as one), and a root the user cannot read is reported with
/// its errno, not as "no group is present".
@Suite(.tags(.multiprocess, .hostile), .dedicatedThreads) struct LinkAndPermissionTests {
    let group = CLIFixture.group

    /// A directory outside the root dressed as a container, with a suite in it.
    func outsideContainer(_ fixture: CLIFixture) throws -> URL {
        let outside = fixture.device.scratch.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("Library/Preferences"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 4321).write(to: outside.appendingPathComponent("Library/Preferences/secret.plist"))
        return outside
    }

    @Test func listShowsALinkedContainerAsALinkWithoutFollowingIt() throws {
        let fixture = try CLIFixture()
        let outside = try outsideContainer(fixture)
        let linked = "group.ai.systenics.planted"
        try FileManager.default.createSymbolicLink(at: fixture.device.root.appendingPathComponent(linked), withDestinationURL: outside)
        let text = try fixture.succeed(["list"])
        #expect(text.contains("\(linked) -> \(outside.path) (symbolic link"), "\(text)")
        #expect(!text.contains("secret"), "listed a file outside the root: \(text)")
        #expect(!text.contains("4321"), "counted bytes outside the root: \(text)")
        let json = try #require(try fixture.json(["list"]) as? [[String: Any]])
        #expect(json.contains { ($0["group"] as? String) == linked && ($0["link"] as? String) == outside.path })
        #expect(!json.contains { ($0["suites"] as? [String])?.contains("secret") == true })
    }

    @Test func listShowsALinkInsideAContainerWithoutFollowingIt() throws {
        let fixture = try CLIFixture()
        let outside = try outsideContainer(fixture)
        let preferences = fixture.container.appendingPathComponent("Library/Preferences")
        try FileManager.default.removeItem(at: preferences)
        try FileManager.default.createSymbolicLink(at: preferences, withDestinationURL: outside.appendingPathComponent("Library/Preferences"))
        let text = try fixture.succeed(["list"])
        #expect(text.contains("link:    Library/Preferences -> \(outside.path)/Library/Preferences"), "\(text)")
        #expect(!text.contains("secret") && !text.contains("4321"), "followed the link: \(text)")
    }

    @Test func anUnreadableRootIsPermissionDeniedNotAMissingGroup() throws {
        // Root reads any directory, so as root the tool runs as another user;
        // any other user is refused by the mode itself.
        var setpriv: String?
        if Privileges.isRoot { setpriv = try #require(Privileges.setpriv as String?, "setpriv (util-linux) is needed to run as another user") }
        let fixture = try CLIFixture()
        let root = fixture.device.root
        // Everyone may reach the root; no one but its owner may read it.
        var path = root.deletingLastPathComponent()
        while path.path != "/" {
            var st = stat()
            if lstat(path.path, &st) == 0 { _ = chmod(path.path, st.st_mode & 0o7777 | 0o111) }
            path = path.deletingLastPathComponent()
        }
        #expect(chmod(root.path, 0) == 0)
        defer { _ = chmod(root.path, 0o700) }
        let command = [try CLIFixture.binary("appgroup").path, "defaults", "read", group, "--root", root.path]
        let process = try setpriv.map { try LaunchedProcess.run(URL(fileURLWithPath: $0), ["--reuid=65534", "--regid=65534", "--clear-groups"] + command) }
            ?? LaunchedProcess.run(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
        let message = process.standardError
        #expect(process.status == 1)
        #expect(message.lowercased().contains("permission denied"), "\(message)")
        #expect(!message.contains("no group is present"), "\(message)")
    }
}
