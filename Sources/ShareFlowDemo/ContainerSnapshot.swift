import AppGroupContainer
import Foundation

/// What a directory tree holds, entry by entry (kind, size, modification time),
/// to tell what a process changed in it: the refused extension must change
/// nothing in the group's container, which may well exist already (a root used
/// before), so its mere existence proves nothing.
struct ContainerSnapshot: Equatable {
    /// Relative path -> "kind size mtime". Links are recorded, never followed.
    private(set) var entries: [String: String] = [:]

    /// Deeper than any container the demo makes; deeper entries are not looked at.
    static let maximumDepth = 32

    /// The tree at `directory` now; empty when nothing is there.
    init(of directory: URL) {
        walk(directory.path, relative: "", depth: 0)
    }

    private mutating func walk(_ path: String, relative: String, depth: Int) {
        guard let status = try? FileOperations.status(path) else {
            if !relative.isEmpty { entries[relative] = "unreadable" }
            return
        }
        if !relative.isEmpty {
            entries[relative] = "\(status.kind) \(status.size) \(status.modified)"
        }
        guard status.isDirectory, depth < Self.maximumDepth else { return }
        var names: [String] = []
        _ = try? FileOperations.forEachEntry(in: path) { names.append($0) }
        for name in names {
            walk(path + "/" + name, relative: relative.isEmpty ? name : relative + "/" + name, depth: depth + 1)
        }
    }

    /// The paths that were added, removed or changed since `before`, sorted.
    func changes(since before: ContainerSnapshot) -> [String] {
        Set(entries.keys).union(before.entries.keys).filter { entries[$0] != before.entries[$0] }.sorted()
    }
}
