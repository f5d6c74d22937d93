import AppGroupContainer
import Foundation
import ShareInbox

/// A group's share inbox (the default one, `Library/Application Support/Inbox`),
/// opened as the inspector identity only when it exists, so that looking never
/// creates one.
enum GroupInbox {
    /// The inbox of `group`, or nil when the group has none yet.
    static func open(_ group: GroupIdentifier, container: URL, inspector: Inspector) throws -> ShareInbox? {
        let directory = container.appendingPathComponent("Library/Application Support", isDirectory: true)
            .appendingPathComponent(ShareInbox.defaultName, isDirectory: true)
        // Each directory on the way must be real: a link there is shown by `list`, never followed.
        var step = container
        for component in ["Library", "Application Support", ShareInbox.defaultName] {
            step = step.appendingPathComponent(component, isDirectory: true)
            guard inspector.isDirectory(step) else { return nil }
        }
        do {
            return try ShareInbox(groupIdentifier: group.rawValue, resolver: try inspector.resolver(for: group))
        } catch {
            throw CLIError.failed("cannot open the share inbox \(directory.path): \(error)")
        }
    }

    /// The size of a file in bytes, 0 when it cannot be read.
    static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
