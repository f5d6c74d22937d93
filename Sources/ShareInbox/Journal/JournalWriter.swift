import AppGroupContainer
import Foundation

/// The log one ``ShareInbox`` instance appends its attachment-less items to
/// (`Journal/<pid>-<16 hex>.log`), kept open across enqueues.
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
        /// Bytes appended so far (the log is append-only: its size).
        var size: Int64
        /// The number of the last record appended.
        var lastNumber: UInt64?
    }

    /// A log past this size is closed and a new one started by the next enqueue,
    /// so a drain can remove delivered logs while the writer lives on.
    static let rotationSize: Int64 = 1 << 20

    private let current = Locked<Log?>(nil)

    deinit { current.withLock { $0?.file.unlockAndClose() } }

    /// Runs `body` with this writer's log slot, under the writer's mutex: the
    /// enqueues of one instance append one at a time.
    func withLog<T>(_ body: (inout Log?) throws -> T) rethrows -> T {
        try current.withLock(body)
    }

    /// The log to append to: the open one while `Journal/<name>` (below `inbox`,
    /// the enqueue's walked directory) still names it and it is under
    /// ``rotationSize``; otherwise a new one (its creation fsynced into `Journal/`
    /// when `durable`, before any record in it counts).
    static func usableLog(_ log: inout Log?, inbox directory: DirectoryHandle, durable: Bool, inboxPath inbox: String,
                          repairJournal: () throws -> Void) throws -> Log {
        if let open = log {
            // One lstat through the walked descriptor; the record is written to the
            // open descriptor whatever the name, so this only notices a log moved away.
            let identity = try? directory.identity(of: "Journal/" + open.name)
            if open.size < rotationSize, let identity, identity.device == open.device, identity.inode == open.inode {
                return open
            }
            if identity == nil || identity?.inode != open.inode {
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
        let created = try create(in: journal)
        if durable { try journal.sync() }
        log = created
        return created
    }

    /// A new log, locked by this process, and its cursor, written whole (offset 0)
    /// so that the drain never needs a new block to record a delivery from it. A
    /// drain removes a log whose lock it can take and whose records are all
    /// delivered: if one took this new, empty log's between its creation and the
    /// lock here, the log has no name left and another is made. A lock that fails
    /// otherwise is thrown, the log removed.
    private static func create(in journal: DirectoryHandle) throws -> Log {
        while true {
            let name = "\(getpid())-\(hex16(UInt64.random(in: 0...UInt64.max))).log"
            let file: OpenFile
            do {
                file = try journal.createAppendOnlyFile(name)
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
                    return Log(name: name, file: file, device: identity.device, inode: identity.inode, size: identity.size)
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
