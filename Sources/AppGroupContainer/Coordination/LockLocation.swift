import AppGroupSystem

/// Where one item's lock file is, as found once, and how to tell cheaply whether
/// the protocol's search (<doc:LockingProtocol>, section 1) would still find it
/// there.
///
/// An item's tree is decided by what the file system holds, and that changes:
/// a `.coordination` made in a directory between the item and its tree (a
/// container root nested in another root's group container, another program),
/// a device root made above an item of the private tree, a tree removed. A
/// process that kept a location found earlier would then lock one file while
/// every process started since locks another, and the two would no longer
/// exclude each other. So a location is never trusted for good: after every lock
/// (``FileLock``), before the accessor runs, it is checked again, and a location
/// that changed is given up for the one the search finds now.
final class LockLocation: Sendable {
    let placement: LockSlot.Placement
    let lockPath: String
    /// `<D>/.coordination` for every directory `D` the search looks at: from the
    /// item's own directory up to the tree's root (inclusive), or up to the top
    /// for an item of the private tree. Empty for a lock file beside its item,
    /// whose place no tree decides.
    private let places: [String]
    /// True when the last place is the tree found (a device root's).
    private let rooted: Bool

    init(_ placement: LockSlot.Placement, itemPath: String) {
        self.placement = placement
        lockPath = placement.path
        rooted = placement.tree.root != nil
        places = placement.beside ? [] : Self.places(itemPath: itemPath, root: placement.tree.root)
    }

    /// True when the search would find the same tree now: no trusted
    /// `.coordination` in a directory nearer the item, and the tree's own still a
    /// trusted directory. One lstat per place (the item's depth below its root:
    /// four for a suite's plist), no allocation.
    func isCurrent() -> Bool {
        if places.isEmpty { return true }
        let user = SystemCalls.effectiveUser
        let last = places.count - 1
        var index = 0
        while index <= last {
            if SystemCalls.isPrivateDirectory(places[index], of: user) != (rooted && index == last) { return false }
            index += 1
        }
        return true
    }

    /// The places the search looks at for the item at `itemPath`, nearest first,
    /// ending at `root` (or, for none, at the topmost directory below `/`).
    private static func places(itemPath: String, root: String?) -> [String] {
        var places: [String] = []
        var directory = Substring(itemPath)
        while let slash = directory.utf8.lastIndex(of: UInt8(ascii: "/")), slash != directory.utf8.startIndex {
            directory = directory[..<slash]
            places.append(String(directory) + "/" + CoordinationTree.directoryName)
            if let root, directory.utf8.elementsEqual(root.utf8) { break }
        }
        return places
    }
}
