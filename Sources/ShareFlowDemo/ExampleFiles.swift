import AppGroupSimulation
import Foundation

/// The example `.entitlements` files of the Notes app: the package's `Examples/`
/// folder when this source tree is at hand, else the copy embedded in
/// AppGroupTesting, written into a scratch directory (so the demo works from anywhere).
enum ExampleFiles {
    static func locate(fallback: URL) throws -> (directory: URL, origin: String) {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples", isDirectory: true)
        let complete = NotesExampleFiles.targets.allSatisfy {
            FileManager.default.isReadableFile(atPath: examples.appendingPathComponent($0.file).path)
        }
        if complete { return (examples, "the package's Examples/") }
        try NotesExampleFiles.writeEntitlementsFiles(to: fallback)
        return (fallback, "written from the copy embedded in AppGroupTesting")
    }
}
