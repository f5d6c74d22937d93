import AppGroupContainer
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

extension MultiProcess {
    /// What stands inside a container root is checked
    /// at every write (no link followed below the root) and belongs to the user.
    @Suite("Container safety", .tags(.multiprocess, .hostile))
    struct ContainerSafety {
        static let group = "group.ai.systenics.safety"

        func identity() throws -> [String: String] {
            try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.safety", applicationGroups: [Self.group]).environment
        }

        /// A link planted at Library/Preferences after the process's
        /// first save; its next save is refused and nothing lands outside the root.
        @Test("a link planted at Library/Preferences after a save is refused at the next save")
        func linkPlantedAfterOpen() throws {
            try withTemporaryDirectory { dir in
                let root = dir.appendingPathComponent("root", isDirectory: true)
                let outside = dir.appendingPathComponent("outside", isDirectory: true)
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                let go = dir.appendingPathComponent("go")
                var environment = try identity()
                environment[ContainerResolver.rootEnvironmentKey] = root.path
                try withProbes { probes in
                    let writer = try Probe.start(["container-save", "--group", Self.group, "--name", "notes.plist", "--wait", go.path], environment: environment)
                    probes.append(writer)
                    try #require(writer.waitForLine("saved first"), "stderr: \(writer.standardError)")
                    let preferences = root.appendingPathComponent("\(Self.group)/Library/Preferences")
                    try FileManager.default.moveItem(at: preferences, to: dir.appendingPathComponent("moved-away"))
                    try FileManager.default.createSymbolicLink(at: preferences, withDestinationURL: outside)
                    #expect(FileManager.default.createFile(atPath: go.path, contents: Data()))
                    #expect(writer.wait(timeout: 30).status == 0, "stderr: \(writer.standardError)")
                    let refusal = writer.outputLines.first { $0.hasPrefix("refused:") }
                    #expect(refusal?.contains("symbolic link") == true, "the second save was not refused: \(writer.standardOutput)")
                }
                #expect(names(in: outside) == [], "nothing written outside the root")
            }
        }

        /// A group directory made beforehand by another user, 0777.
        @Test("a container directory owned by another user is refused, in process and in a child process",
              .enabled(if: Privileges.isRoot, "planting a directory of another user needs root to chown it (CI runs as root)"))
        func foreignGroupDirectory() throws {
            try withTemporaryDirectory { dir in
                let root = dir.appendingPathComponent("root", isDirectory: true)
                let planted = root.appendingPathComponent(Self.group, isDirectory: true)
                try FileManager.default.createDirectory(at: planted.appendingPathComponent("Library/Preferences"), withIntermediateDirectories: true)
                let suite = planted.appendingPathComponent("Library/Preferences/\(Self.group).plist")
                try Data("planted".utf8).write(to: suite)
                for path in [planted.path, planted.appendingPathComponent("Library").path, planted.appendingPathComponent("Library/Preferences").path] {
                    #expect(chown(path, 65534, 65534) == 0 && chmod(path, 0o777) == 0)
                }
                let resolver = ContainerResolver(root: root, entitlements: try Entitlements(
                    teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.safety", applicationGroups: [Self.group]))
                #expect {
                    try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: Self.group)
                } throws: { error in
                    guard case let .untrustedDirectory(path, owner, mode, _)? = error as? AppGroupError else { return false }
                    let text = "\(error)"
                    return path == planted.path && owner == 65534 && mode == 0o777 && text.contains("uid 65534") && text.contains("777") && text.contains("chown")
                }
                var environment = try identity()
                environment[ContainerResolver.rootEnvironmentKey] = root.path
                let child = try Probe.start(["resolve", "--group", Self.group], environment: environment)
                #expect(child.wait(timeout: 30).status == 2, "the child used the foreign directory: \(child.standardOutput)")
                #expect(child.standardError.contains("uid 65534"), "stderr: \(child.standardError)")
                #expect(try Data(contentsOf: suite) == Data("planted".utf8))
            }
        }

        @Test("a container directory of the process's own user, writable by others, is repaired to 0700")
        func ownWritableDirectoryRepaired() throws {
            try withTemporaryDirectory { dir in
                let root = dir.appendingPathComponent("root", isDirectory: true)
                let container = root.appendingPathComponent(Self.group, isDirectory: true)
                try FileManager.default.createDirectory(at: container.appendingPathComponent("Library"), withIntermediateDirectories: true)
                for path in [root.path, container.path, container.appendingPathComponent("Library").path] { #expect(chmod(path, 0o777) == 0) }
                let resolver = ContainerResolver(root: root, entitlements: try Entitlements(
                    teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.safety", applicationGroups: [Self.group]))
                #expect(try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: Self.group).path == container.path)
                for path in [root.path, container.path, container.appendingPathComponent("Library").path,
                             container.appendingPathComponent("Library/Preferences").path] {
                    var st = stat()
                    #expect(lstat(path, &st) == 0 && st.st_mode & 0o777 == 0o700, "\(path)")
                }
            }
        }
    }
}
