import AppGroupContainer
import Foundation

extension SimulatedDevice {
    /// A built executable older than a source file of its target: the code of the
    /// last build runs, not the code on disk (`swift test --skip-build` after an edit).
    package struct StaleExecutable: Sendable, Equatable, CustomStringConvertible {
        /// The executable.
        package let executable: URL
        /// The newest source file of its target, changed after it was built.
        package let source: URL

        package var description: String {
            "\(executable.lastPathComponent) (\(executable.path)) is older than \(source.path), changed since it was built: "
                + "the test runs the code of the last build. Build again (`swift build --build-tests`, or `swift test` without `--skip-build`)"
        }
    }

    /// The staleness of `executable`, built by SwiftPM at `<package>/.build/...`: the
    /// newest file under `<package>/Sources/<name>/` when it is newer than the
    /// executable; nil when it is not, or when the package or the target's folder
    /// cannot be found (only the target's own folder is compared: the executable
    /// does not say which other targets it depends on).
    package static func staleness(of executable: URL) -> StaleExecutable? {
        let resolved = executable.resolvingSymlinksInPath()
        var folder = resolved.deletingLastPathComponent()
        while folder.path != "/" && folder.lastPathComponent != ".build" {
            folder = folder.deletingLastPathComponent()
        }
        let package = folder.deletingLastPathComponent()
        guard folder.lastPathComponent == ".build",
              FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else { return nil }
        let sources = package.appendingPathComponent("Sources").appendingPathComponent(resolved.lastPathComponent)
        guard let built = modified(resolved),
              let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: [.contentModificationDateKey, .isRegularFileKey]) else {
            return nil
        }
        var newest: (url: URL, date: Date)?
        for case let file as URL in files {
            guard let values = try? file.resourceValues(forKeys: [.contentModificationDateKey, .isRegularFileKey]),
                  values.isRegularFile == true, let date = values.contentModificationDate else { continue }
            if date > built, date > (newest?.date ?? .distantPast) { newest = (file, date) }
        }
        return newest.map { StaleExecutable(executable: resolved, source: $0.url) }
    }

    /// Says once per executable and process, through the package's diagnostics, that
    /// `executable` is older than its sources.
    static func reportIfStale(_ executable: URL) {
        guard let stale = staleness(of: executable) else { return }
        let first = reported.withLock { $0.insert(stale.executable.path).inserted }
        if first { Diagnostics.warn("AppGroupTesting: \(stale)") }
    }

    private static func modified(_ url: URL) -> Date? {
        try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
    }

    private static let reported = Locked(Set<String>())
}
