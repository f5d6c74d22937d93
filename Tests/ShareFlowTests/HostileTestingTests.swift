import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing

/// A hostile look at AppGroupTesting's new pieces (session 4 review).
@Suite struct HostileTestingTests {
    /// "/" or NUL followed by a combining mark is one `Character` that is neither
    /// "/" nor NUL, so a check by `Character` let these through: the first made its
    /// device in the parent of the temporary directory.
    @Test(arguments: ["../\u{301}escape", "a/\u{301}b", "nul\0\u{301}byte"])
    func aSlashOrNulHiddenInACombiningSequenceIsRefused(name: String) throws {
        let parent = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().deletingLastPathComponent()
        func escaped() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []).filter { $0.utf8.starts(with: "\u{301}escape-".utf8) }
        }
        defer { for name in escaped() { try? FileManager.default.removeItem(at: parent.appendingPathComponent(name)) } }
        var made: SimulatedDevice?
        let error = #expect(throws: InvalidDeviceName.self) { made = try SimulatedDevice(name: name) }
        #expect(error?.name == name)
        if let made {
            #expect(made.directory.deletingLastPathComponent().path == FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path,
                    "the device was made at \(made.directory.path)")
            made.remove()
        }
        #expect(escaped().isEmpty, "a device was made outside the temporary directory")
    }
}
