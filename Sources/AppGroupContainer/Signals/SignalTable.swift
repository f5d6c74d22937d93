import CAppGroupSys
import Foundation
import AppGroupSystem

/// The device's one cross-process signal: a named post that every process of the
/// same device root observing the name receives (README.md in this folder is the
/// design note).
///
/// A fixed-size file, `<root>/.coordination/signals.table`, mapped shared by every
/// process that posts or observes: a header whose ``epoch`` word every post
/// increments (observers sleep on it with a futex), and an open-addressing table
/// of 64-bit name hashes, each with a 32-bit counter that the posts of that name
/// increment. An observer compares counters with the values it last saw, so any
/// number of posts while it was busy, stopped or suspended arrive as one notice
/// per name, and a dead observer holds nothing a poster waits for.
package final class SignalTable: @unchecked Sendable {
    // Immutable after init; the mapping is shared memory that every access reaches
    // through the atomic operations of SharedWord.
    /// The table file's name in a coordination tree.
    package static let fileName = "signals.table"
    static let magic: UInt32 = 0x5453_4741 // "AGST"
    static let version: UInt32 = 1
    /// Slots of names. Slot 0 is shared by every name that finds no free slot in
    /// ``probeLimit`` probes (a full table): its observers are told of each post
    /// of any such name (more notices, never fewer).
    static let slotCount = 8192
    static let probeLimit = 64
    static let headerSize = 64
    static let slotSize = 16
    static let size = headerSize + slotCount * slotSize

    /// The table's path.
    package let path: String
    private let base: UnsafeMutableRawPointer

    private init(path: String, base: UnsafeMutableRawPointer) {
        self.path = path
        self.base = base
    }

    deinit { SystemCalls.unmap(base, length: Self.size) }

    // MARK: Words of the mapping

    private func word32(at offset: Int) -> UnsafeMutablePointer<UInt32> {
        (base + offset).assumingMemoryBound(to: UInt32.self)
    }

    /// Incremented by every post: what observers sleep on.
    var epoch: UnsafeMutablePointer<UInt32> { word32(at: 16) }
    /// Observers asleep (or about to be): a post wakes only when some are. A
    /// killed sleeper leaves its count behind, which costs posts a futex call each,
    /// never a wait.
    var sleepers: UnsafeMutablePointer<UInt32> { word32(at: 20) }

    private func hashWord(_ slot: Int) -> UnsafeMutablePointer<UInt64> {
        (base + Self.headerSize + slot * Self.slotSize).assumingMemoryBound(to: UInt64.self)
    }

    func counter(_ slot: Int) -> UnsafeMutablePointer<UInt32> { word32(at: Self.headerSize + slot * Self.slotSize + 8) }

    // MARK: Names

    /// FNV-1a, 64 bits, of the name's UTF-8 bytes (0 is the empty slot's mark).
    static func hash(_ name: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        return value == 0 ? 1 : value
    }

    /// The slot of `name`, claimed if no process has yet; 0 when the table is full.
    /// Two names with the same 64-bit hash share a slot (a notice too many).
    package func slot(of name: String) -> Int {
        let hash = Self.hash(name)
        let start = Int(hash % UInt64(Self.slotCount - 1)) + 1
        for probe in 0..<Self.probeLimit {
            let slot = (start - 1 + probe) % (Self.slotCount - 1) + 1
            let word = hashWord(slot)
            let held = SharedWord.load(word)
            if held == hash { return slot }
            if held == 0 {
                if SharedWord.compareExchange(word, expected: 0, desired: hash) { return slot }
                if SharedWord.load(word) == hash { return slot } // another process claimed it for this name
            }
        }
        return 0
    }

    /// Posts `name`: one increment of its counter and of the epoch, and a futex
    /// wake when some observer sleeps. Never waits (but for its turn, in a target
    /// of an exploring device: a post is a coordinated step).
    package func post(_ name: String) {
        let slot = slot(of: name)
        Exploration.step("signal post", name)
        let span = Tracing.begin(.signalPost)
        let count = post(slot: slot)
        span?.end(name, [("table", path), ("count", "\(count)")], flowOut: traceFlow(slot: slot, count: count))
    }

    /// Returns the slot's counter after the post.
    @discardableResult
    func post(slot: Int) -> UInt32 {
        let count = SharedWord.add(counter(slot), 1)
        SharedWord.add(epoch, 1)
        if SharedWord.load(sleepers) > 0 { SystemCalls.futexWakeAll(epoch) }
        return count
    }

    /// The trace's arrow from the post that made a slot's counter `count` to the
    /// deliveries that saw it: of coalesced posts, the last one's.
    func traceFlow(slot: Int, count: UInt32) -> UInt64 {
        Tracing.flowID("signal", path, "\(slot)", "\(count)")
    }

    /// The count of posts of the name in `slot` (wrapping).
    package func count(_ slot: Int) -> UInt32 { SharedWord.load(counter(slot)) }

    /// Slots claimed; for tests and the appgroup tool.
    package var namesInUse: Int {
        (1..<Self.slotCount).reduce(0) { $0 + (SharedWord.load(hashWord($1)) == 0 ? 0 : 1) }
    }

    // MARK: Opening

    private static let open = Locked<[ExactPath: SignalTable]>([:])

    /// The table of the device whose root is `root`, in its coordination tree
    /// (``CoordinationTree/ofDevice(root:)``: a root that got no tree of its own
    /// uses the tree above it), made if missing, mapped once per process.
    /// - Throws: ``AppGroupError`` when the coordination tree or the table cannot
    ///   be opened (EMFILE, a tree not to be trusted) or mapped.
    package static func forDevice(root: ContainerRoot) throws(AppGroupError) -> SignalTable {
        try forTree(CoordinationTree.ofDevice(root: root.path))
    }

    /// The table of the tree that holds `itemPath`'s coordination files: its
    /// device's, or for an item under no device root, the user's private tree's.
    package static func forItem(_ itemPath: String) throws(AppGroupError) -> SignalTable {
        try forTree(CoordinationTree.locate(itemPath).tree)
    }

    package static func forTree(_ tree: CoordinationTree) throws(AppGroupError) -> SignalTable {
        let key = ExactPath(tree.path)
        if let known = open.withLock({ $0[key] }) { return known }
        let table = try make(in: tree)
        return open.withLock { tables in
            if let raced = tables[key] { return raced }
            if tables.count >= 256 { tables.removeAll() } // holders keep theirs mapped
            tables[key] = table
            return table
        }
    }

    private static func make(in tree: CoordinationTree) throws(AppGroupError) -> SignalTable {
        let directory = try tree.open(creating: true)
        defer { directory.close() }
        let path = directory.path(of: fileName)
        for attempt in 0..<3 {
            let fd: Int32
            do {
                fd = try SystemCalls.open(at: directory.fd, fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, path: path)
            } catch .call(_, _, let code) where code == .ELOOP && attempt < 2 {
                // A symbolic link planted in the package's own tree: removed, never followed.
                _ = try fromSystem(SystemCalls.unlink(at: directory.fd, fileName, path: path))
                Diagnostics.warn("signals: \(path) was a symbolic link; it was removed and a table of this process's own made")
                continue
            } catch {
                throw AppGroupError(error)
            }
            defer { SystemCalls.close(fd) }
            let status = try fromSystem(SystemCalls.fstat(fd, path: path))
            if let problem = unusable(status) {
                guard attempt < 2 else { throw .unsafePath(path: path, problem: "it is \(problem), and it came back after being replaced twice") }
                _ = try fromSystem(SystemCalls.unlink(at: directory.fd, fileName, path: path))
                Diagnostics.warn("signals: \(path) was \(problem); it was replaced by a table of this process's own")
                continue
            }
            try lock(fd, path: path)
            // Released explicitly: the mapping keeps the open file description, and
            // with it an OFD lock, alive after the descriptor is closed.
            defer { _ = SystemCalls.lock(fd, Int32(AGC_LOCK_UNLOCK), wait: false, path: path) }
            let size = try fromSystem(SystemCalls.fstat(fd, path: path)).st_size
            if size == 0 {
                try fromSystem(SystemCalls.truncate(fd, to: Int64(Self.size), path: path))
                let table = SignalTable(path: path, base: try fromSystem(SystemCalls.mapShared(fd, length: Self.size, path: path)))
                table.word32(at: 4).pointee = version
                table.word32(at: 8).pointee = UInt32(slotCount)
                SharedWord.add(table.word32(at: 0), magic) // last, and atomically: the table is ready
                return table
            }
            if size == Int64(Self.size) {
                let table = SignalTable(path: path, base: try fromSystem(SystemCalls.mapShared(fd, length: Self.size, path: path)))
                if SharedWord.load(table.word32(at: 0)) == magic, table.word32(at: 4).pointee == version,
                   table.word32(at: 8).pointee == UInt32(slotCount) {
                    return table
                }
            }
            // Not a table this code wrote: kept aside for a look, never overwritten.
            guard attempt < 2 else { throw .unsafePath(path: path, problem: "it is not a signal table (corrupt), and it came back after being set aside") }
            let aside = "\(fileName).corrupt-\(getpid())-\(Int(Date().timeIntervalSince1970))"
            try fromSystem(SystemCalls.rename(at: directory.fd, fileName, to: aside, path: path))
            Diagnostics.warn("signals: \(path) was not a signal table (\(size) bytes); it was kept aside as \(aside) and a new table made")
        }
        throw .unsafePath(path: path, problem: "it could not be made")
    }

    /// Why a table file with status `st` must not be used; nil when it may.
    private static func unusable(_ st: SystemCalls.FileStatus) -> String? {
        if !SystemCalls.isRegular(st) { return "a \(SystemCalls.fileKind(st.st_mode)), not a regular file" }
        if st.st_uid != SystemCalls.effectiveUser { return "a file of uid \(st.st_uid), not of this process's user" }
        if st.st_nlink != 1 { return "a file with \(st.st_nlink) hard links (mapping it would change another file)" }
        return nil
    }

    /// The table file's own lock, held while it is sized and mapped, so that one process makes it and the others map what it made. Held
    /// for microseconds; waited for at most two seconds.
    private static func lock(_ fd: Int32, path: String) throws(AppGroupError) {
        let deadline = Date().addingTimeInterval(2)
        var pause: UInt32 = 100
        while let code = SystemCalls.lock(fd, FileLock.Mode.exclusive.rawValue, wait: false, path: path) {
            guard code == .EAGAIN || code == .EACCES || code == .EINTR else {
                throw .systemCall(operation: "fcntl(F_OFD_SETLK)", path: path, errno: code)
            }
            guard Date() < deadline else { throw .coordinationTimedOut(path: path, lockFile: path, seconds: 2) }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
    }
}
