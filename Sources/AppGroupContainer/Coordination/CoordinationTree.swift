import Foundation
import AppGroupSystem

/// Where the lock file and the change-signal file of a coordinated item live: in a
/// directory of the package's own, never beside the item (<doc:LockingProtocol>,
/// version 2, section 1). iOS's NSFileCoordinator leaves nothing beside the items
/// it coordinates, so code that lists a folder (a queue of pending files, say)
/// must find only its own files there.
///
/// - An item below a device root `R` (a container root: a simulated device) has
///   its files in `R/.coordination/`, keyed by its path below `R`.
/// - Any other item has them in the user's private tree (``privateTree()``),
///   keyed by its absolute path: never in a directory another user can write.
///
/// A file's name is the first 32 lowercase hexadecimal digits of SHA-256 of the
/// key's UTF-8 bytes, then `.lock` or `.changes`; a lock file made here holds its
/// key and a newline, for people and tools (the protocol never reads it).
///
/// An item's device root is the nearest directory above it that holds a
/// `.coordination` directory of this user that no one else may write: every
/// process finds the same one from the file system alone, whether or not it
/// resolved a container there (a script, a tool given a path). Whatever makes or
/// uses a root (the resolver, the keychain's device, the simulated device) makes
/// its `.coordination` first (``prepare(root:)``, ``ensurePrepared(_:)``), before
/// any item below it is coordinated.
package struct CoordinationTree: Sendable, Hashable {
    /// The side tree's directory name in a device root.
    package static let directoryName = ".coordination"

    /// The tree's directory (absolute, standardized).
    package let path: String
    /// The device root it belongs to; nil for the user's private tree.
    package let root: String?

    /// The tree and key of the item at the absolute, standardized `itemPath`.
    package static func locate(_ itemPath: String) throws(AppGroupError) -> (tree: CoordinationTree, key: String) {
        if let root = deviceRoot(above: itemPath) {
            let key = String(decoding: itemPath.utf8.dropFirst(root.utf8.count + 1), as: UTF8.self)
            return (CoordinationTree(path: root + "/" + directoryName, root: root), key)
        }
        return (try privateTree(), itemPath)
    }

    /// The path of the file for `key` with `suffix` (".lock" or ".changes").
    func filePath(forKey key: String, suffix: String) -> String {
        path + "/" + Self.fileName(forKey: key, suffix: suffix)
    }

    /// The file name for `key`: 32 hexadecimal digits of SHA-256 of its bytes, then `suffix`.
    static func fileName(forKey key: String, suffix: String) -> String {
        String(SHA256.hex(Array(key.utf8)).prefix(32)) + suffix
    }

    // MARK: Finding the device root

    /// The nearest directory above `itemPath` holding a trusted `.coordination`.
    static func deviceRoot(above itemPath: String) -> String? {
        MarkedRoots.root(above: itemPath)
    }

    // MARK: Making and opening the tree

    /// Opens the tree's directory, making it (0700) when `creating` and it is
    /// missing. In a device root it is reached from the root without following a
    /// link (``ContainedDirectory``), and made only as ``prepare(root:)`` makes it;
    /// the private tree is checked as it is opened.
    /// - Throws: ENOENT (as ``AppGroupError/systemCall(operation:path:errno:)``) when
    ///   it is missing and not `creating`, or a device root's that may not be made
    ///   now; ``AppGroupError/untrustedDirectory(path:owner:mode:user:)``
    ///   or ``AppGroupError/unsafePath(path:problem:)`` for a directory not to be trusted.
    package func open(creating: Bool) throws(AppGroupError) -> ContainedDirectory {
        if let root {
            do {
                return try ContainedDirectory.open(path, below: root)
            } catch .call(_, _, let code) where code == .ENOENT && creating {
                try Self.prepare(root: root)
                return try fromSystem(ContainedDirectory.open(path, below: root))
            } catch {
                throw AppGroupError(error)
            }
        }
        if creating {
            // The parent is the user's own (~/.cache, made if missing) or /tmp.
            try fromSystem(SystemCalls.makeDirectories((path as NSString).deletingLastPathComponent))
            try TrustedDirectory.make(path)
        }
        let fd = try fromSystem(SystemCalls.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW))
        do throws(AppGroupError) {
            try TrustedDirectory.check(try fromSystem(SystemCalls.fstat(fd, path: path)), path)
        } catch {
            SystemCalls.close(fd)
            throw error
        }
        return ContainedDirectory(fd: fd, path: path)
    }

    /// Makes `<root>/.coordination` (0700) if it is missing and `root` holds
    /// nothing else yet: the resolver calls it for every root it makes or finds,
    /// so that processes that only know a path find the root by its tree.
    ///
    /// A tree is born with its root, never under items already in use: a
    /// `.coordination` made in a directory that holds files would take their
    /// locks from the tree every running process uses for them (an outer root's,
    /// when this root lies in another root's group container, or the private
    /// tree) to a new one, and a process already running would not exclude those
    /// started after. Such a root gets no tree of its own; its items keep the
    /// tree the search finds above them, whatever process asks, and that is said
    /// once per process (``Diagnostics``). Every process finds the same one.
    package static func prepare(root: String) throws(AppGroupError) {
        let tree = root + "/" + directoryName
        if !SystemCalls.isAbsent(tree) {
            try TrustedDirectory.make(tree) // there: checked (and repaired) as any container directory
            return
        }
        if let held = firstEntry(of: root) {
            DeclinedRoots.say(root, holding: held)
            return
        }
        try TrustedDirectory.make(tree)
    }

    /// A name in `root` other than the tree's, or nil when it holds none (or
    /// cannot be listed: making the tree then reports the problem).
    private static func firstEntry(of root: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
        return names.first { $0 != directoryName }
    }

    /// The tree of the device whose root is `root`: its own (made if `root` is
    /// still empty, ``prepare(root:)``), or, for a root that got none, the tree
    /// its items use (the search's from inside it), so that every process using
    /// that root agrees.
    package static func ofDevice(root: String) throws(AppGroupError) -> CoordinationTree {
        try prepare(root: root)
        let own = CoordinationTree(path: root + "/" + directoryName, root: root)
        if SystemCalls.isPrivateDirectory(own.path, of: SystemCalls.effectiveUser) { return own }
        return try locate(root + "/" + directoryName).tree
    }

    /// ``prepare(root:)`` once per process and root, for a store that works under
    /// `root` without a resolver (the keychain's device): a failure is said, not
    /// thrown (the lock is then taken where the search finds it, and making the
    /// lock file reports the problem).
    package static func ensurePrepared(_ root: ContainerRoot) {
        PreparedRoots.ensure(root.path)
    }

    // MARK: The private tree

    private static let privateTreePath = Locked<String?>(nil)

    /// The tree of items under no device root: `~/.cache/AppGroupCoordination` of
    /// the user's home in the password database (not `$HOME`, so that every process
    /// of the user agrees whatever its environment), or, when that home is missing
    /// or not the user's, `/tmp/AppGroupCoordination-<uid>`. Either must be a real
    /// directory of the user that no one else may write: one that another user made
    /// first is refused, never used (``open(creating:)``).
    static func privateTree() throws(AppGroupError) -> CoordinationTree {
        if let known = privateTreePath.withLock({ $0 }) { return CoordinationTree(path: known, root: nil) }
        let user = SystemCalls.effectiveUser
        var path = "/tmp/AppGroupCoordination-\(user)"
        if let home = SystemCalls.homeDirectory(ofUser: user), home != "/", let st = try? SystemCalls.stat(home),
           SystemCalls.isDirectory(st), st.st_uid == user {
            path = home + "/.cache/AppGroupCoordination"
        }
        privateTreePath.withLock { $0 = path }
        return CoordinationTree(path: path, root: nil)
    }
}

/// The roots whose `.coordination` this process made sure of.
enum PreparedRoots {
    private static let done = Locked<Set<ExactPath>>([])

    static func ensure(_ root: String) {
        let key = ExactPath(root)
        if done.withLock({ $0.contains(key) }) { return }
        do {
            try CoordinationTree.prepare(root: root)
            done.withLock { _ = $0.insert(key) }
        } catch {
            // Not fatal here: the lock is then taken where the search below
            // finds it, and making the lock file reports the problem.
            Diagnostics.warn("could not make \(root)/\(CoordinationTree.directoryName): \(error)")
        }
    }
}

/// The device roots found by their `.coordination` directory, by the directory of
/// the item (exact bytes). Bounded: past 1,024 directories it starts afresh. An
/// answer of "none" is not kept, so a root made later is found.
enum MarkedRoots {
    private static let found = Locked<[ExactPath: String]>([:])

    /// Forgets every root found: a tree appeared or went somewhere.
    static func forgetAll() {
        found.withLock { $0.removeAll() }
    }

    static func root(above itemPath: String) -> String? {
        guard let slash = itemPath.utf8.lastIndex(of: UInt8(ascii: "/")), slash != itemPath.utf8.startIndex else { return nil }
        let directory = String(itemPath[..<slash])
        let key = ExactPath(directory)
        if let known = found.withLock({ $0[key] }) { return known }
        guard let root = search(directory) else { return nil }
        found.withLock { table in
            if table.count >= 1024 { table.removeAll() }
            table[key] = root
        }
        return root
    }

    /// The nearest ancestor-or-self of `directory` holding a `.coordination`
    /// directory (not a link) of this user that no one else may write.
    private static func search(_ directory: String) -> String? {
        let user = SystemCalls.effectiveUser
        var candidate = directory
        while !candidate.isEmpty {
            if SystemCalls.isPrivateDirectory(candidate + "/" + CoordinationTree.directoryName, of: user) {
                return candidate
            }
            guard let slash = candidate.utf8.lastIndex(of: UInt8(ascii: "/")) else { break }
            candidate = String(candidate[..<slash])
        }
        return nil
    }
}

/// The roots that got no tree of their own (``CoordinationTree/prepare(root:)``),
/// said once per process each.
enum DeclinedRoots {
    private static let said = Locked<Set<ExactPath>>([])

    static func say(_ root: String, holding name: String) {
        guard said.withLock({ $0.insert(ExactPath(root)).inserted }) else { return }
        let governing = (try? CoordinationTree.locate(root + "/" + name).tree.path) ?? "the user's private tree"
        Diagnostics.warn("\(root) already holds \(name) and has no \(CoordinationTree.directoryName): it gets none, since one made now "
                         + "would move the locks of items processes may be using; its items are coordinated in \(governing), as in every process. "
                         + "To give it a tree of its own, start from an empty root")
    }
}
