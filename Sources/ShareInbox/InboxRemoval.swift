import AppGroupContainer
import Foundation

/// Removal of inbox entries (items, tombstones, staging) and moves that never
/// replace anything, on the container's primitives.
///
/// Removal walks with descriptors, never follows a link, and gives up past
/// ``maximumDepth`` levels: an item is its record plus flat files, so anything
/// deeper was planted, and a crafted tree deeper than PATH_MAX must neither crash
/// nor stall a drain. A tree that cannot be removed throws; the caller quarantines it.
extension ShareInbox {
    /// Deepest directory nesting ``removeTree(_:)`` descends into.
    static let maximumDepth = 8

    /// Removes `path` and, when it is a directory, everything under it (links are
    /// removed, not followed). Nothing there is not an error.
    static func removeTree(_ path: String) throws {
        try FileOperations.removeTree(path, maximumDepth: maximumDepth)
    }

    /// Moves `path` into `Quarantine/` under `label` (a fresh suffix when the name
    /// is taken: a quarantined entry is never replaced) and returns where it went.
    @discardableResult
    func moveToQuarantine(_ path: String, label: String) throws -> String {
        // By path: Quarantine/ must be a directory, not a link to elsewhere.
        try requireLayoutDirectory("Quarantine")
        var aside = quarantineDirectory.appendingPathComponent(label).path
        for _ in 0..<8 {
            do {
                try FileOperations.moveWithoutReplacing(path, to: aside)
                return aside
            } catch {
                if FileOperations.isNameTaken(error) {
                    aside = quarantineDirectory.appendingPathComponent(label + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)).path
                } else {
                    throw error
                }
            }
        }
        throw FileOperations.nameTakenError(aside, operation: "rename")
    }
}
