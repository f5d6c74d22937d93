#if !canImport(Darwin)
import Foundation
import AppGroupSystem

/// What a presenting process checks of a record before it acts on it.
///
/// A signal file lives in a coordination tree that every sandboxed target of the
/// device may write, so a record says only what its writer claims. On iOS,
/// filecoordinationd relays only what a coordinated access really did; here the
/// reader checks the claim against the file system, which a target cannot forge
/// outside what its own sandbox reaches: a move is followed only when the
/// destination holds the very file presented (same device and inode) and the
/// source no longer does, and only to a place this process may reach; any other
/// notice must name the presented item or an item below it. What fails a check is
/// dropped with a diagnostic naming the signal file. At worst, a forged record
/// then yields a notice that matches what the file system shows (a spurious
/// change), never a presenter led somewhere else.
extension ChangeSignal {
    /// A file's device and inode: what a move must carry along.
    package struct ItemIdentity: Hashable, Sendable {
        package let device: UInt64
        package let inode: UInt64
    }

    /// The identity of what `path` names now (a final symbolic link is not
    /// followed); nil when nothing is there or it cannot be looked at.
    package static func identity(ofItemAt path: String) -> ItemIdentity? {
        guard let found = try? SystemCalls.lstatIdentity(path) else { return nil }
        return ItemIdentity(device: found.device, inode: found.inode)
    }

    /// Whether this process may reach the directory that holds `path`: it opens
    /// it, which the sandbox of a target refuses outside its containers.
    package static func mayReach(directoryOf path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        guard let fd = try? SystemCalls.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) else { return false }
        SystemCalls.close(fd)
        return true
    }

    /// What a presenter of `itemPath` (whose file was last seen as `presented`)
    /// may do with `record`, read from the signal file at `signal`.
    package enum Verdict: Sendable, Equatable {
        /// The presented item changed.
        case itemChanged
        /// An item below the presented directory changed.
        case subitemChanged(String)
        /// The presented item is now at this path (checked).
        case itemMoved(to: String)
        /// An item below the presented directory moved (checked).
        case subitemMoved(from: String, to: String)
        /// Not acted on: why, for the diagnostic.
        case refused(String)
    }

    /// Checks `record` for the presenter of `itemPath`; see the type's note.
    package static func verdict(on record: Record, presenting itemPath: String, presented: ItemIdentity?) -> Verdict {
        let isItem = record.path == itemPath
        let isBelow = !isItem && record.path.hasPrefix(itemPath == "/" ? "/" : itemPath + "/")
        guard isItem || isBelow else {
            return .refused("it names \(AppGroupError.quote(record.path)), which is neither the presented item nor below it")
        }
        guard record.kind == .move else { return isItem ? .itemChanged : .subitemChanged(record.path) }
        guard let newPath = record.newPath else { return .refused("a move with no destination") }
        guard mayReach(directoryOf: newPath) else {
            return .refused("its destination \(AppGroupError.quote(newPath)) lies outside what this process may reach")
        }
        guard let destination = identity(ofItemAt: newPath) else {
            return .refused("nothing is at its destination \(AppGroupError.quote(newPath))")
        }
        if identity(ofItemAt: record.path) == destination {
            return .refused("its source \(AppGroupError.quote(record.path)) still holds the file")
        }
        if isBelow { return .subitemMoved(from: record.path, to: newPath) }
        guard let presented else {
            return .refused("the presented file was never seen, so a move of it cannot be checked")
        }
        guard presented == destination else {
            return .refused("its destination \(AppGroupError.quote(newPath)) holds another file than the one presented")
        }
        return .itemMoved(to: newPath)
    }
}
#endif
