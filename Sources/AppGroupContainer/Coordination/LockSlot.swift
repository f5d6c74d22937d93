import CAppGroupSys
import Foundation
import AppGroupSystem

/// One item's lock file and the idle descriptors open on it.
///
/// Descriptors are kept open so that taking a lock costs one fcntl and one lstat
/// (the protocol's step 5) rather than an open, an fstat and a close. A
/// descriptor serves one holder at a time, so every holder still has an open file
/// description of its own, and two holders in one process exclude each other as
/// two processes do.
///
/// Where the lock file is (``LockLocation``) is checked after every lock and may
/// move (``relocate(from:)``): the slot stays the item's, so every holder and
/// every cache that kept the slot follows.
final class LockSlot: @unchecked Sendable {
    /// An open descriptor on the lock file, the inode it was opened on, and the
    /// location it was opened at.
    struct Handle: Sendable {
        let fd: Int32
        let device: UInt64
        let inode: UInt64
        let location: LockLocation
    }

    /// Where a lock file is: its tree, its key there, its name.
    struct Placement: Sendable {
        /// The directory the lock file is in: a coordination tree, or (`beside`)
        /// the item's own directory, for the package's own stores
        /// (``FileCoordinator/LockFiles/besideItems(below:)``).
        let tree: CoordinationTree
        let key: String
        let name: String
        let beside: Bool
        /// For a lock file beside its item: the root the item's directory is
        /// reached from without following a link.
        let root: ContainerRoot?
        var path: String { tree.path == "/" ? "/" + name : tree.path + "/" + name }
    }

    /// The item's standardized absolute path.
    let itemPath: String
    let lockFiles: FileCoordinator.LockFiles
    /// The lock file stands beside the item (it never moves).
    var beside: Bool { lockFiles.isBeside }
    private let mutex = NSLock()
    // Unchecked: only touched under `mutex`, which already makes each access exclusive.
    @exclusivity(unchecked) private var current: LockLocation
    @exclusivity(unchecked) private var idle: [Handle] = []
    private static let maxIdle = 4

    init(itemPath: String, lockFiles: FileCoordinator.LockFiles, placement: Placement) {
        self.itemPath = itemPath
        self.lockFiles = lockFiles
        current = LockLocation(placement, itemPath: itemPath)
    }

    deinit {
        for handle in idle { SystemCalls.close(handle.fd) }
        IdleLockDescriptors.release(idle.count)
    }

    /// Where the lock file is, as last found.
    var location: LockLocation {
        mutex.lock()
        defer { mutex.unlock() }
        return current
    }

    var lockPath: String { location.lockPath }

    /// The location, checked against the file system now, and moved when it changed.
    func revalidated() throws(AppGroupError) -> LockLocation {
        let known = location
        if known.isCurrent() { return known }
        try relocate(from: known)
        return location
    }

    /// Gives up `stale` for where the protocol's search finds the lock file now
    /// (unless another holder already did), closing the idle descriptors, which
    /// are open on the old file. The process's found roots are forgotten too:
    /// what changed for this item may have changed for others.
    func relocate(from stale: LockLocation) throws(AppGroupError) {
        MarkedRoots.forgetAll()
        let found = LockLocation(try FileLock.placement(forStandardizedPath: itemPath, lockFiles: lockFiles), itemPath: itemPath)
        mutex.lock()
        var dropped: [Handle] = []
        if current === stale {
            current = found
            dropped = idle
            idle.removeAll()
        }
        mutex.unlock()
        for handle in dropped { SystemCalls.close(handle.fd) }
        IdleLockDescriptors.release(dropped.count)
    }

    /// An idle descriptor, or a new one on the lock file in its tree (O_RDWR,
    /// O_NOFOLLOW, O_NONBLOCK so a FIFO planted there cannot block the open; 0600),
    /// the tree reached without following links (``CoordinationTree/open(creating:)``).
    /// A lock file made here gets its key as content, for people and tools. A
    /// device root's tree that is gone is not made again here (that would make a
    /// tree appear under items other processes now lock elsewhere): the slot
    /// moves to where the search finds the lock file now.
    func take() throws(AppGroupError) -> Handle {
        var attempts = 0
        while true {
            mutex.lock()
            let reused = idle.popLast()
            let location = current
            mutex.unlock()
            if let reused {
                IdleLockDescriptors.release(1)
                return reused
            }
            do {
                return try open(at: location)
            } catch {
                // (Matched in the body: a typed catch pattern inside a loop crashes
                // Swift 6.3.1's SIL verifier.)
                guard case .systemCall(_, _, let code) = error, code == .ENOENT,
                      location.placement.tree.root != nil, !beside, attempts < 8 else { throw error }
                attempts += 1
                try relocate(from: location)
            }
        }
    }

    private func open(at location: LockLocation) throws(AppGroupError) -> Handle {
        let placement = location.placement
        let lockPath = location.lockPath
        let directory = placement.beside
            ? try fromSystem(ContainedDirectory.open(placement.tree.path, below: placement.root?.path))
            : try placement.tree.open(creating: placement.tree.root == nil)
        defer { directory.close() }
        let (fd, made) = try open(in: directory, placement: placement, lockPath: lockPath)
        do throws(AppGroupError) {
            let st = try fromSystem(SystemCalls.fstat(fd, path: lockPath))
            guard SystemCalls.isRegular(st) else {
                throw .notARegularFile(path: lockPath, kind: SystemCalls.fileKind(st.st_mode))
            }
            guard st.st_uid == SystemCalls.effectiveUser else {
                throw .unsafePath(path: lockPath, problem: "the lock file belongs to uid \(st.st_uid), not to this process's user (uid \(SystemCalls.effectiveUser)); remove it")
            }
            // O_CREAT applies the umask; a lock file every peer opens must stay 0600.
            if st.st_mode & 0o777 != SystemCalls.fileMode { try fromSystem(SystemCalls.fchmod(fd, SystemCalls.fileMode, path: lockPath)) }
            if made && placement.tree.root == nil && !placement.beside { PrivateTreeSweep.onceIfLarge(directory) }
            if made && !placement.beside {
                // For people and tools only: no participant reads it, so a failed
                // write (a full disk) costs nothing but the label.
                let label = Data((placement.key + "\n").utf8)
                try? SystemCalls.writeAll(fd, label, at: 0, path: lockPath)
            }
            return Handle(fd: fd, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), location: location)
        } catch {
            SystemCalls.close(fd)
            throw error
        }
    }

    /// Opens the lock file, making it (O_EXCL) when it is missing: the file that
    /// exists already is the usual case, so it costs one call. True when made here.
    private func open(in directory: ContainedDirectory, placement: Placement, lockPath: String) throws(AppGroupError) -> (fd: Int32, made: Bool) {
        let flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK
        do throws(SystemError) {
            for _ in 0..<8 {
                do {
                    return (try SystemCalls.open(at: directory.fd, placement.name, flags, path: lockPath), false)
                } catch .call(_, _, let code) where code == .ENOENT {}
                do {
                    return (try SystemCalls.open(at: directory.fd, placement.name, flags | O_CREAT | O_EXCL, path: lockPath), true)
                } catch .call(_, _, let code) where code == .EEXIST {}
                // Made (or removed) by another process between the two: again.
            }
            return (try SystemCalls.open(at: directory.fd, placement.name, flags | O_CREAT, path: lockPath), false)
        } catch .call(_, _, let code) where code == .ELOOP {
            throw .unsafePath(path: lockPath, problem: "a symbolic link stands where the lock file belongs; it was not followed, remove it")
        } catch {
            throw AppGroupError(error)
        }
    }

    /// Returns an unlocked descriptor for the next holder: kept idle while this
    /// slot and the whole process are within their bounds and it is open where
    /// the lock file still is, else closed.
    func giveBack(_ handle: Handle) {
        mutex.lock()
        let keep = handle.location === current && idle.count < Self.maxIdle && IdleLockDescriptors.reserve()
        if keep { idle.append(handle) }
        mutex.unlock()
        if !keep { SystemCalls.close(handle.fd) }
    }

    /// Closes every idle descriptor: the path was found to name another file, so
    /// they may all be open on the old one.
    func dropIdle() {
        mutex.lock()
        let stale = idle
        idle.removeAll()
        mutex.unlock()
        for handle in stale { SystemCalls.close(handle.fd) }
        IdleLockDescriptors.release(stale.count)
    }
}

/// The process's lock slots, by item path (exact bytes: see `ExactPath`) and
/// where its lock file is, so that a coordination of an item seen before costs
/// one dictionary lookup: no path parsing, no lock-path building.
enum LockSlots {
    private struct Key: Hashable {
        let path: ExactPath
        let lockFiles: FileCoordinator.LockFiles
    }

    private static let table = Locked<[Key: LockSlot]>([:])
    // Bounded: past this many items the table starts afresh (slots in use live on
    // with their holders; their descriptors close when the last holder is done).
    private static let capacity = 1024

    static func cached(_ itemPath: String, lockFiles: FileCoordinator.LockFiles) -> LockSlot? {
        let key = Key(path: ExactPath(itemPath), lockFiles: lockFiles)
        return table.withLock { $0[key] }
    }


    static func slot(forStandardizedPath itemPath: String, lockFiles: FileCoordinator.LockFiles) throws(AppGroupError) -> LockSlot {
        if let slot = cached(itemPath, lockFiles: lockFiles) { return slot }
        if !lockFiles.isBeside { try refuseVersionOnePeers(of: itemPath) }
        let slot = LockSlot(itemPath: itemPath, lockFiles: lockFiles,
                            placement: try FileLock.placement(forStandardizedPath: itemPath, lockFiles: lockFiles))
        // Keys are looked up by percent-encoded path; a decoded path holding a "%"
        // could equal another item's encoded path, so such items are not cached.
        if itemPath.utf8.contains(UInt8(ascii: "%")) { return slot }
        let key = Key(path: ExactPath(itemPath), lockFiles: lockFiles)
        return table.withLock { table in
            if let existing = table[key] { return existing }
            if table.count >= capacity { table.removeAll() }
            table[key] = slot
            return slot
        }
    }

    /// A lock file of the previous protocol beside the item means a process of
    /// package 0.1.x coordinates it (or did): it locks there and this release in
    /// the coordination tree, so the two would not exclude each other and their
    /// writes could be lost. Refused, loudly, rather than risked.
    private static func refuseVersionOnePeers(of itemPath: String) throws(AppGroupError) {
        guard let old = FileLock.versionOneLockPath(forStandardizedPath: itemPath),
              let st = try? SystemCalls.lstat(old), SystemCalls.isRegular(st) else { return }
        throw .olderLockingProtocol(path: itemPath, lockFile: old)
    }
}

/// How many idle lock descriptors the whole process keeps: each slot keeps up to
/// four, but a process that coordinates thousands of items (a test run, a folder
/// of many files) would otherwise hold a descriptor per item it ever touched, up
/// to the slot table's 1,024 entries: near a default limit of 1,024 open files,
/// where every other open then fails with EMFILE. Past the budget a released
/// descriptor is closed; the next lock of that item opens one again.
enum IdleLockDescriptors {
    static let budget = 64
    /// Places taken. Changed by compare-and-swap, not under a mutex: every
    /// uncontended coordination takes a place and gives it back, and two mutexes
    /// a coordination would be a large share of its work. Allocated
    /// once and never freed, so its address is stable for the atomics.
    nonisolated(unsafe) private static let count: UnsafeMutablePointer<UInt64> = {
        let word = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        word.initialize(to: 0)
        return word
    }()

    /// Takes one place in the budget; false when it is spent.
    static func reserve() -> Bool {
        while true {
            let taken = agc_atomic_load64(count)
            guard taken < UInt64(budget) else { return false }
            if agc_atomic_cas64(count, taken, taken + 1) != 0 { return true }
        }
    }

    /// Gives back `places`.
    static func release(_ places: Int) {
        guard places > 0 else { return }
        while true {
            let taken = agc_atomic_load64(count)
            let left = taken > UInt64(places) ? taken - UInt64(places) : 0
            if agc_atomic_cas64(count, taken, left) != 0 { return }
        }
    }
}
