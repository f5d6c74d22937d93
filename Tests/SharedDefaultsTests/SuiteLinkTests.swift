import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport
import SharedDefaults

/// Symbolic links planted where a suite's files belong, pointing outside the root:
/// refused, and nothing is written outside (the links of every store:
/// AppGroupContainerTests' SymlinkTests).
@Suite("Planted symbolic links: a suite's files", .tags(.hostile), .dedicatedThreads)
struct SuiteLinkTests {
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
}
