import AppGroupContainer
import Foundation

/// The log one ``ShareInbox`` instance appends its attachment-less items to
/// (`Journal/<pid>-<16 hex>.log`), kept open across enqueues.
///
/// A durable instance's log is written ahead with zeros (``Log/capacity``, from
/// ``firstCapacity`` doubling to ``rotationSize``) and its records written over
/// them at the descriptor's position: the append then changes no size and
/// allocates no block, so its fdatasync writes the record's blocks and no inode
/// (half the time of an append that grows the file, measured on ext4). Readers
/// find where the records end by following their headers to the zero tail
/// (``JournalLogEnd``). The zeros need no fsync of their own: the first record's
/// fdatasync carries them. The writer never writes past its own zeros (see
/// ``makeRoom(_:for:)``); a log that cannot be written ahead at all (a full disk)
/// is an O_APPEND log, as a non-durable instance's is.
///
/// The log is created O_EXCL and exclusively locked (an OFD lock) by its writer
/// for as long as the writer keeps it: a drain that can take that lock knows the
/// writer is gone, so it may remove the log once delivered, or judge a record cut
/// short at its end as damage rather than one still being written. Rotation and
/// the instance's end unlock, then close (``OpenFile/unlockAndClose()`` says why);
/// the process's death lets the lock go too.
final class JournalWriter: Sendable {
    /// The open log and what is known of it.
    struct Log {
        let name: String
        let file: OpenFile
        let device: UInt64
        let inode: UInt64
        /// Bytes of records so far: where the next one is written (the
        /// descriptor's position).
        var size: Int64
        /// Bytes written ahead with zeros (0: the log grows record by record).
        var capacity: Int64 = 0
        /// Whether the log is written ahead (a durable instance's, while the disk
        /// has room for it).
        var preallocating: Bool
        /// The number of the last record appended.
        var lastNumber: UInt64?
    }

    /// A log past this size is closed and a new one started by the next enqueue,
    /// so a drain can remove delivered logs while the writer lives on.
    static let rotationSize: Int64 = 1 << 20

    /// The zeros a new log is written ahead with (about 50 records): small, as a
    /// share extension often enqueues one item and ends.
    static let firstCapacity: Int64 = 16 << 10

    private let current = Locked<Log?>(nil)

    deinit { current.withLock { $0?.file.unlockAndClose() } }

    /// Runs `body` with this writer's log slot, under the writer's mutex: the
    /// enqueues of one instance append one at a time.
    func withLog<T>(_ body: (inout Log?) throws -> T) rethrows -> T {
        try current.withLock(body)
    }

    /// The log to append to: the open one while `Journal/<name>` (below `inbox`,
    /// the enqueue's walked directory) still names it, it is under
    /// ``rotationSize`` and the next `bytes` fit in it; otherwise a new one (its
    /// creation fsynced into `Journal/` when `durable`, before any record in it counts).
    static func usableLog(_ log: inout Log?, needing bytes: Int, inbox directory: DirectoryHandle, durable: Bool, inboxPath inbox: String,
                          repairJournal: () throws -> Void) throws -> Log {
        if var open = log {
            // One lstat through the walked descriptor; the record is written to the
            // open descriptor whatever the name, so this only notices a log moved away.
            let identity = try? directory.inodeIdentity(of: "Journal/" + open.name)
            let same = identity.map { $0.device == open.device && $0.inode == open.inode } ?? false
            if open.size < rotationSize, same, makeRoom(&open, for: bytes) {
                log = open
                return open
            }
            if !same {
                Diagnostics.warn("share inbox \(inbox): the journal log \(open.file.path) was removed or renamed by another process; "
                                 + "this enqueue starts a new log. Do not move or delete files in Journal/ by hand")
            }
            open.file.unlockAndClose()
            log = nil
        }
        let journal: DirectoryHandle
        do {
            journal = try directory.openDirectory("Journal")
        } catch {
            if FileOperations.isMissing(error) {
                // Removed by another process: made again, as the instance's init made it.
                try TrustedDirectory.make(inbox + "/Journal")
                journal = try directory.openDirectory("Journal")
            } else if InboxFailure.isWrongKind(error) {
                // A file, a link, a FIFO planted there: set aside, made again.
                try repairJournal()
                journal = try directory.openDirectory("Journal")
            } else {
                throw error
            }
        }
        let created = try create(in: journal, preallocating: durable, needing: bytes)
        if durable { try journal.sync() }
        log = created
        return created
    }

    /// Makes sure the next `bytes` fit in the zeros written ahead, writing more
    /// (doubling, from ``firstCapacity`` up to ``rotationSize``, or as much as one
    /// larger record needs in an empty log) when they would not. False when the
    /// log must take no more records: it is full, a write fails (a full disk), or
    /// the file is longer than the zeros this writer wrote (another process
    /// appended to it: a record written there would overwrite those bytes, which a
    /// drain sets aside instead). True at once for a log that is not written ahead.
    static func makeRoom(_ log: inout Log, for bytes: Int) -> Bool {
        guard log.preallocating else { return true }
        let needed = log.size + Int64(bytes)
        if needed <= log.capacity { return true }
        if log.size > 0 && needed > rotationSize { return false }
        var target = max(firstCapacity, min(rotationSize, log.capacity * 2))
        if needed > target { target = (needed + 4095) / 4096 * 4096 }
        do {
            guard try log.file.currentIdentity().size == log.capacity else { return false }
            // At an offset (pwrite): the descriptor's position stays at the records' end.
            try log.file.write(Data(count: Int(target - log.capacity)), at: log.capacity)
        } catch {
            return false
        }
        log.capacity = target
        return true
    }

    /// A new log, locked by this process, and its cursor, written whole (offset 0)
    /// so that the drain never needs a new block to record a delivery from it. A
    /// drain removes a log whose lock it can take and whose records are all
    /// delivered: if one took this new, empty log's between its creation and the
    /// lock here, the log has no name left and another is made. A lock that fails
    /// otherwise is thrown, the log removed. With `preallocating`, the log is
    /// written ahead for the first `bytes` at least; when it cannot be (a full
    /// disk), it is removed and an O_APPEND log made instead.
    private static func create(in journal: DirectoryHandle, preallocating: Bool, needing bytes: Int) throws -> Log {
        var preallocating = preallocating
        while true {
            let name = "\(getpid())-\(hex16(UInt64.random(in: 0...UInt64.max))).log"
            let file: OpenFile
            do {
                // Written ahead, records go at the position; otherwise O_APPEND.
                file = try preallocating ? journal.createFileForWriting(name) : journal.createAppendOnlyFile(name)
            } catch {
                if FileOperations.isNameTaken(error) {
                    continue
                } else {
                    throw error
                }
            }
            do {
                if try file.tryLockExclusively(), try file.linkCount() > 0 {
                    let identity = try file.currentIdentity()
                    JournalCursor.create(forLog: name, in: journal, device: identity.device, inode: identity.inode)
                    var log = Log(name: name, file: file, device: identity.device, inode: identity.inode, size: identity.size,
                                  preallocating: preallocating)
                    if makeRoom(&log, for: bytes) { return log }
                    // Empty, and no record ever written to it: gone with its cursor.
                    file.unlockAndClose()
                    _ = try? journal.remove(name, durable: false)
                    _ = try? journal.remove(JournalCursor.name(forLog: name), durable: false)
                    preallocating = false
                    continue
                }
            } catch {
                file.unlockAndClose()
                _ = try? journal.remove(name, durable: false)
                throw error
            }
            file.unlockAndClose()
        }
    }

    /// `value` as 16 lowercase hexadecimal digits.
    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
