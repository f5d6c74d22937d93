#if !canImport(Darwin)
import Foundation
import AppGroupContainer
import AppGroupSystem

/// What proves that the process asking a presenter about an item could reach
/// that item: a descriptor of a directory holding it, opened by the asker for
/// reading and passed beside the request (`SCM_RIGHTS`). A sandbox refuses that
/// open outside what the asker may read, and a rule of Landlock's covers a whole
/// directory, so a process that could open the directory may read everything
/// below it. An `O_PATH` descriptor proves nothing (Landlock does not restrict
/// such opens) and is refused.
///
/// Every request but `reacquire` (which only gives a presenter its item back, and
/// names a request of the same asker) carries one. The directory is the item's
/// parent or, when that does not exist (an item not written yet), the nearest
/// directory above it, up to the presented directory for an item strictly below
/// a presented directory, or up to the presented item's parent for the presented
/// item itself: never a directory above what the presenter presents.
enum RemotePresenterReach {
    /// The directories whose descriptor proves reach of `itemPath` for a
    /// presenter of `presentedPath`, nearest first; empty when the item is
    /// neither the presented item nor below it.
    static func provingDirectories(item itemPath: String, presented presentedPath: String) -> [String] {
        let below = itemPath.hasPrefix(presentedPath == "/" ? "/" : presentedPath + "/") && itemPath != presentedPath
        guard below || itemPath == presentedPath else { return [] }
        let limit = below ? presentedPath : parent(of: presentedPath)
        var directories: [String] = []
        var current = parent(of: itemPath)
        while directories.count < 4096 {
            directories.append(current)
            if current == limit || current == "/" { break }
            current = parent(of: current)
        }
        return directories.last == limit ? directories : []
    }

    /// The asker's side: a descriptor proving reach of `itemPath` (the caller
    /// closes it), or nil when this process can open none of the directories.
    static func openProof(item itemPath: String, presented presentedPath: String) -> Int32? {
        for directory in provingDirectories(item: itemPath, presented: presentedPath) {
            if let fd = try? LocalSockets.openDirectory(directory) { return fd }
        }
        return nil
    }

    /// The presenter's side: why `proof` does not prove reach of `itemPath` for a
    /// presenter of `presentedPath` (nil when it does): it must be a directory
    /// opened for reading, the very directory (device and inode) this process
    /// finds at one of ``provingDirectories(item:presented:)``.
    static func refusal(of proof: Int32?, item itemPath: String, presented presentedPath: String) -> String? {
        guard let proof else { return "it came without a descriptor of a directory holding the item, which proves the asker may reach it" }
        guard let identity = LocalSockets.readableDirectory(proof) else {
            return "the descriptor that came with it is not a directory opened for reading (an O_PATH descriptor proves nothing)"
        }
        for directory in provingDirectories(item: itemPath, presented: presentedPath) {
            guard let status = try? SystemCalls.stat(directory) else { continue }
            if UInt64(status.st_dev) == identity.device && UInt64(status.st_ino) == identity.inode { return nil }
        }
        return "the directory whose descriptor came with it does not hold \(AppGroupError.quote(itemPath)): the asker did not show it may reach the item"
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
#endif
