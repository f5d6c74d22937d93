import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import SharedKeychain
import Testing
import ShareInbox
import TestSupport
import DeviceTestSupport

extension ProcessTests {
    @Test("under umask 000 every directory the package makes is 0700 and every file 0600")
    func modesUnderOpenUmask() throws {
        let sandbox = try Sandbox()
        // A root the child makes itself, so the root's own mode is tested too.
        let root = sandbox.base.appendingPathComponent("fresh/root", isDirectory: true)
        let child = try reliabilityProbe(["populate", "--umask", "000", "--group", Sandbox.group, "--scratch", sandbox.scratch.path],
                              environment: sandbox.environment(sandbox.app, root: root))
        let end = child.wait(timeout: 120)
        #expect(end.status == 0 && end.standardOutput.contains("done"), "populate failed: \(end.standardError)")
        var entries = walk(root)
        var rootStatus = stat()
        #expect(lstat(root.path, &rootStatus) == 0)
        entries.append((root.path, rootStatus.st_mode))
        var wrong: [String] = []
        var directories = 0
        var files = 0
        for (path, mode) in entries {
            switch mode & S_IFMT {
            case S_IFDIR:
                directories += 1
                if mode & 0o7777 != 0o700 { wrong.append("\(path) \(String(mode & 0o7777, radix: 8))") }
            case S_IFREG:
                files += 1
                if mode & 0o7777 != 0o600 { wrong.append("\(path) \(String(mode & 0o7777, radix: 8))") }
            default:
                wrong.append("\(path): unexpected \(String(mode & S_IFMT, radix: 8))")
            }
        }
        #expect(wrong.isEmpty, "modes wider or narrower than 0700/0600: \(wrong)")
        #expect(directories >= 15 && files >= 8, "the child made \(directories) directories and \(files) files")
        report("umask 000: \(directories) directories all 0700, \(files) files all 0600")
    }

    @Test("a process not entitled to a group can neither read nor write it through any public API", .tags(.hostile))
    func outsiderRefused() throws {
        let sandbox = try Sandbox()
        // The app puts something of each kind in the group first.
        let defaults = try SharedDefaults(requiringSuiteName: Sandbox.group, resolver: sandbox.resolver())
        try defaults.save("app's", forKey: "key")
        let inbox = try ShareInbox(groupIdentifier: Sandbox.group, resolver: sandbox.resolver())
        try inbox.enqueue(SharedItem(title: "app's"))
        let device = try KeychainDevice(root: sandbox.root)
        let keychain = Keychain(device: device, identity: sandbox.app)
        let key = GenericPassword(service: "s", account: "a", accessGroup: Sandbox.group)
        try keychain.save(Data("app's secret".utf8), for: key)
        // The outsider's own storage (where iOS puts its private suite of the group's name) is not the group's.
        let applications = sandbox.root.appendingPathComponent("Applications").path
        let ownStorage = applications + "/" + sandbox.outsider.bundleIdentifier
        func groupSnapshot() -> [String] { snapshot(sandbox.root).filter { !$0.hasPrefix(applications + " ") && !$0.hasPrefix(ownStorage) } }
        let before = groupSnapshot()

        // Not quiet: the refusals' diagnostics on standard error are checked too.
        var environment = sandbox.environment(sandbox.outsider)
        environment["APP_GROUP_QUIET"] = nil
        let child = try reliabilityProbe(["outsider", "--group", Sandbox.group], environment: environment)
        let end = child.wait(timeout: 120)
        let refused = end.standardOutput.split(separator: "\n").filter { $0.hasPrefix("refused ") }
        #expect(end.status == 0, "the outsider got through: \(end.standardOutput) \(end.standardError)")
        #expect(refused.count == 10 && !end.standardOutput.contains("ALLOWED"), "\(end.standardOutput)")
        #expect(end.standardError.contains("not entitled"), "the refusals say why: \(end.standardError.prefix(400))")

        #expect(groupSnapshot() == before, "the outsider changed nothing under the root but its own storage")
        #expect(try defaults.load(forKey: "key") as? String == "app's")
        #expect(try inbox.pendingCount() == 1)
        #expect(try keychain.read(key) == Data("app's secret".utf8))
        report("outsider: \(refused.count) public APIs tried by a process without the group, all refused, nothing changed")
    }
}

/// Path, inode, size and modification time of everything under `directory`.
func snapshot(_ directory: URL) -> [String] {
    walk(directory).map { entry in
        var st = stat()
        _ = lstat(entry.path, &st)
        return "\(entry.path) \(st.st_ino) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(String(entry.mode, radix: 8))"
    }.sorted()
}
