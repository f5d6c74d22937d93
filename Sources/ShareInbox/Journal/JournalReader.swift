import AppGroupContainer
import Foundation

/// The journal as the one drain holding its consumer lock reads it: every log's
/// next undelivered record (its head), found by number, so the drain merges the
/// logs with `Items/` into one walk in number order.
///
/// A head is a whole, checked record (``JournalScanner``): nothing unchecked
/// becomes a head, so nothing unchecked orders the walk or raises the counter.
/// Memory stays bounded whatever the backlog: per log, only its head's header is
/// kept; a payload is read when its number comes up (and checked again). So do
/// descriptors: a share of the process's limit (see ``descriptorLimit``), others
/// reopened by name (and their inode checked) when needed.
///
/// What cannot be done now for a log (a descriptor, a read, a cursor or a copy to
/// `Quarantine/` failed, the scan budget is spent) defers that log for the rest of
/// the drain: it is left exactly as it is, with a warning, and a later drain goes on.
final class JournalReader {
    /// What is known of one log.
    struct Log {
        let name: String
        let device: UInt64
        let inode: UInt64
        var file: OpenFile?
        var cursorFile: OpenFile?
        /// Where its records ended at the last refresh (``JournalLogEnd``, found
        /// under the sequence lock: every record below it is whole, unless its
        /// writer failed or died mid-write, or another process wrote into it).
        var end: Int64
        /// The record boundary that refresh reached: where the next one starts.
        var boundary: Int64
        /// Its writer is gone and bytes stand past its zeros: read to the file's end.
        var toFileEnd = false
        /// Delivered up to here: the offset of the head, when there is one.
        var cursor: Int64
        var head: JournalRecord.Header?
        /// The number of the last record taken from this log in this drain.
        var lastNumber: UInt64?
        var cursorDirty = false
        /// Left alone for the rest of this drain (see the type's documentation).
        var deferred = false
    }

    static let consumerLockName = ".consumer.lock"

    let inbox: ShareInbox
    let journal: DirectoryHandle
    private let consumerLock: OpenFile
    var logs: [String: Log] = [:]
    var heads: [UInt64: String] = [:]
    /// Names that could not even be opened this drain (a transient error): not
    /// tried again before the next drain.
    var unopened = Set<String>()
    /// Descriptors this reader holds for logs and cursors, and how many it may.
    var openDescriptors = 0
    let descriptorLimit = JournalReader.descriptorLimit()
    /// Logs in the order their descriptors were opened: the oldest are closed first.
    var openOrder: [String] = []
    var openOrderStart = 0
    /// Cursor files created since the last sync of `Journal/`.
    var createdCursors = false
    /// Cursor names seen without their log (a drain killed between the two removals).
    private var orphanCursors: [String] = []
    /// The highest fresh number ``renumber(_:header:because:)`` gave out.
    var renumbered: UInt64?
    /// What the scans of this drain may spend on candidates that are no records.
    let budget = JournalScanBudget()
    /// Records numbered above this are not believed (see ``ShareInbox/isPlausible(_:after:)``).
    var ceiling: UInt64 = .max
    /// Heads' payloads read with their headers, by log and offset, so that
    /// delivering them reads nothing again; at most ``payloadCacheLimit`` bytes in
    /// all (memory stays flat however many logs there are): past it, a payload is
    /// read again when its number comes up.
    var payloads: [String: (offset: Int64, data: Data)] = [:]
    var payloadBytes = 0
    static let payloadCacheLimit = 1 << 20

    private init(inbox: ShareInbox, journal: DirectoryHandle, consumerLock: OpenFile) {
        self.inbox = inbox
        self.journal = journal
        self.consumerLock = consumerLock
    }

    /// The journal's reader for this drain, or nil when another drain (in any
    /// process, or this one's outer drain) holds the consumer lock: never waits.
    /// Something planted as `Journal/` or as its lock file (a file, a link, a
    /// FIFO, a directory) is moved to `Quarantine/` with a warning and made again:
    /// refusing would stop every drain, `Items/` included, for good. Any other
    /// failure (out of descriptors, another user's directory) leaves the journal
    /// to a later drain, with a warning: `Items/` still flows.
    static func open(_ inbox: ShareInbox) throws -> JournalReader? {
        do {
            return try openOrThrow(inbox)
        } catch {
            Diagnostics.warn("share inbox \(inbox.directory.path): the journal (Journal/) cannot be opened for this drain (\(error)); "
                             + "its items stay and a later drain delivers them")
            return nil
        }
    }

    private static func openOrThrow(_ inbox: ShareInbox) throws -> JournalReader? {
        let journal: DirectoryHandle
        do {
            guard let opened = try DirectoryHandle.open(inbox.journalDirectory, below: inbox.root) else { return nil }
            journal = opened
        } catch {
            if InboxFailure.isWrongKind(error) {
                try inbox.repairDirectory("Journal")
                guard let made = try DirectoryHandle.open(inbox.journalDirectory, below: inbox.root) else { return nil }
                journal = made
            } else {
                throw error
            }
        }
        let lock: OpenFile
        do {
            lock = try journal.openOrCreateFile(consumerLockName)
        } catch {
            if InboxFailure.isWrongKind(error) {
                let path = journal.path + "/" + consumerLockName
                let aside = try inbox.moveToQuarantine(path, label: "journal-" + consumerLockName)
                Diagnostics.warn("share inbox \(inbox.directory.path): \(path) was moved to \(aside) and made again: something other than a file "
                                 + "stood where the journal's lock file belongs (\(error)). Do not create files in Journal/ by hand")
                lock = try journal.openOrCreateFile(consumerLockName)
            } else {
                throw error
            }
        }
        do {
            guard try lock.tryLockExclusively() else { lock.close(); return nil }
        } catch {
            lock.close()
            throw error
        }
        return JournalReader(inbox: inbox, journal: journal, consumerLock: lock)
    }

    deinit {
        for log in logs.values { log.file?.close(); log.cursorFile?.close() }
        consumerLock.unlockAndClose()
    }

    // MARK: Refresh

    /// Lists `Journal/` and notes how far each log goes now. Call it under the
    /// sequence file's shared lock: every record below a log's end is then whole
    /// (unless its writer failed or died mid-write). The heads are read from there
    /// after the lock (``loadHeads(floor:ceiling:)``), so enqueues do not wait for them.
    func measureLogs() throws {
        var listed = Set<String>()
        var cursors: [String] = []
        try journal.forEachEntry { name in
            if JournalCursor.isLogName(name) { listed.insert(name) } else if JournalCursor.isCursorName(name) { cursors.append(name) }
        }
        for name in logs.keys where !listed.contains(name) { forget(name) }
        for name in listed where !unopened.contains(name) {
            if logs[name] == nil { try discover(name) } else { measure(name) }
        }
        let logNames = Set(listed.map { JournalCursor.name(forLog: $0) })
        orphanCursors = cursors.filter { !logNames.contains($0) }
    }

    /// Loads the head of each log that has none, below the end ``measureLogs()``
    /// noted. Records numbered below `floor` (passed by the walk already), twice,
    /// or above `ceiling` (not believable) are published again under a fresh
    /// number (see ``loadHead(_:floor:)``). Returns the highest head, or the
    /// highest fresh number given out meanwhile if higher (the Sequence file read
    /// under the lock is then behind it).
    func loadHeads(floor: UInt64, ceiling: UInt64) throws -> UInt64? {
        renumbered = nil
        self.ceiling = ceiling
        for name in Array(logs.keys) where logs[name]?.head == nil { try loadHead(name, floor: floor) }
        return [heads.keys.max(), renumbered].compactMap { $0 }.max()
    }

    /// Starts following a log found in `Journal/`. Something that is not a regular
    /// file under a log's name (a link, a FIFO...) is moved to `Quarantine/`; a log
    /// that cannot be opened or measured now is left for a later drain.
    private func discover(_ name: String) throws {
        let file: OpenFile
        do {
            guard let opened = try opening(name, { try journal.openExistingFile(name) }) else { return }
            file = opened
        } catch where !InboxFailure.isTransient(error) && error is AppGroupError {
            // A link, a FIFO..., or a file this user may not read: not a log of this inbox.
            setAside(name, because: "it cannot be a log (\(error))")
            return
        } catch {
            unopened.insert(name)
            Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) cannot be opened now (\(error)); "
                             + "it is left as it is and a later drain delivers it")
            return
        }
        do {
            let identity = try file.currentIdentity()
            let cursor = try JournalCursor.read(forLog: name, in: journal, device: identity.device, inode: identity.inode,
                                                end: identity.size, inbox: inbox.directory.path)
            let found = try JournalLogEnd.find(in: file, from: cursor, size: identity.size)
            // Bytes past the zeros written ahead are never its writer's: another
            // process appended them (at the file's end, looked at here). Once the
            // writer is gone (it can no longer write there), they are judged as a
            // log's bytes are: delivered if records, set aside if not, the zeros
            // before them passed.
            var toFileEnd = false
            let tail = max(found.end, identity.size - 4096)
            if found.end < identity.size, try JournalLogEnd.endOfData(in: file, from: tail, size: identity.size) > tail {
                toFileEnd = writerIsGone(name)
            }
            logs[name] = Log(name: name, device: identity.device, inode: identity.inode, file: file, end: toFileEnd ? identity.size : found.end,
                             boundary: found.boundary, toFileEnd: toFileEnd, cursor: cursor)
            noteOpened(name)
        } catch {
            file.close()
            unopened.insert(name)
            Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) or its cursor cannot be read now (\(error)); "
                             + "it is left as it is and a later drain delivers it")
        }
    }

    /// Notes where a known log's records end now, walking on from where the last
    /// look (or the cursor) stopped.
    private func measure(_ name: String) {
        guard let log = logs[name], !log.deferred, let file = file(of: name) else { return }
        do {
            let size = try file.currentIdentity().size
            let found = try JournalLogEnd.find(in: file, from: max(log.boundary, log.cursor), size: size)
            logs[name]?.end = log.toFileEnd ? size : found.end
            logs[name]?.boundary = found.boundary
        } catch {
            deferLog(name, because: "its size or its records cannot be read (\(error))")
        }
    }

    // MARK: Heads

    /// The lowest head numbered at least `floor`.
    func lowestHead(atLeast floor: UInt64) -> UInt64? {
        var lowest: UInt64?
        for number in heads.keys where number >= floor && lowest.map({ number < $0 }) ?? true { lowest = number }
        return lowest
    }

    /// Finds the whole, checked record at the log's cursor and makes it the log's
    /// head. Bytes that are no record are quarantined up to the next record (or, the
    /// writer gone, to the end). A checked record out of order within its log is
    /// quarantined alone; one numbered below `floor`, twice, or above the ceiling
    /// is kept under a fresh number (see ``renumber(_:header:because:)``).
    func loadHead(_ name: String, floor: UInt64) throws {
        while let log = logs[name], log.head == nil, !log.deferred, log.cursor < log.end {
            guard let file = file(of: name) else { return }
            let found: JournalScanner.Found
            let payload: Data?
            do {
                (found, payload) = try JournalScanner(file: file, end: log.end, budget: budget).nextWithPayload(at: log.cursor)
            } catch {
                return deferLog(name, because: "it cannot be read (\(error))")
            }
            switch found {
            case .record(let header):
                if let last = log.lastNumber, header.number <= last {
                    guard try quarantine(name, from: log.cursor, to: log.cursor + header.recordSize,
                                         because: "a record out of order: its number \(header.number) is not above the \(last) before it in the same log") else { return }
                    continue
                }
                let problem: String?
                if header.number > ceiling {
                    problem = "a record numbered \(header.number), far above the \(ceiling - ShareInbox.plausibleAdvance) the Sequence file says (planted, "
                        + "or a counter set by hand), whose number is not believed"
                } else if header.number < floor {
                    problem = "a record numbered \(header.number), below \(floor) where this drain already is (the Sequence file was rewound)"
                } else if let other = heads[header.number] {
                    problem = "a record numbered \(header.number), the number of the next record of \(other) too (the Sequence file was rewound)"
                } else {
                    problem = nil
                }
                if let problem {
                    switch try renumber(name, header: header, because: problem) {
                    case .kept: continue
                    case .deferred: return
                    case .notAnItem:
                        guard try quarantine(name, from: log.cursor, to: log.cursor + header.recordSize,
                                             because: problem + ", and not a valid item") else { return }
                        continue
                    }
                }
                logs[name]?.head = header
                heads[header.number] = name
                if let payload, payloadBytes + payload.count <= Self.payloadCacheLimit {
                    payloads[name] = (log.cursor, payload)
                    payloadBytes += payload.count
                }
            case .damaged(let upTo):
                guard try quarantine(name, from: log.cursor, to: upTo, because: "bytes that are no whole, checked record, up to the next one") else { return }
            case .unfinished(let upTo):
                if upTo > log.cursor {
                    guard try quarantine(name, from: log.cursor, to: upTo, because: "bytes that are no whole, checked record") else { return }
                }
                return deferLog(name, because: "what follows byte \(upTo) holds more candidate records to check than one drain spends on damage "
                                + "(\(JournalScanBudget.perDrain >> 20) MiB); the next drain goes on from there")
            case .none:
                // Still being written only if its writer lives (it holds the log's lock).
                guard writerIsGone(name) else { return }
                guard try quarantine(name, from: log.cursor, to: log.end,
                                     because: "bytes at the end of a log whose writer is gone that hold no whole record (a record cut short)") else { return }
            }
        }
    }

    /// True when no process holds the log's lock (its writer closed it or died).
    /// Not knowing (the lock cannot be tried now) counts as alive: its bytes wait.
    func writerIsGone(_ name: String) -> Bool {
        do {
            guard let probe = try opening(name, { try journal.openExistingFile(name, writing: true) }) else { return true }
            defer { probe.unlockAndClose() }
            return try probe.tryLockExclusively()
        } catch {
            return false
        }
    }

    // MARK: Delivery

    /// What the journal holds under `number`.
    enum Entry {
        /// The item, read and checked, with the log it came from; its cursor is
        /// open, so recording its delivery needs no descriptor and no new block.
        case item(ReceivedItem, log: String)
        /// A record with that number was damaged: quarantined and passed (the log's
        /// next record may carry the number).
        case damaged
        /// Its log cannot be read or its delivery recorded now: left for a later drain.
        case skipped
    }

    /// The journal's record numbered `number` when it is some log's head; nil otherwise.
    func entry(_ number: UInt64) throws -> Entry? {
        guard let name = heads[number], let log = logs[name], let header = log.head else { return nil }
        guard let file = file(of: name) else { return .skipped }
        let payload: Data
        do {
            if let cached = takePayload(name), cached.offset == log.cursor {
                payload = cached.data
            } else {
                payload = try file.read(header.length, at: log.cursor + Int64(header.headerSize))
            }
        } catch {
            deferLog(name, because: "its record \(number) cannot be read (\(error))")
            return .skipped
        }
        let where_ = "\(journal.path)/\(name) at byte \(log.cursor)"
        guard JournalRecord.isWhole(header, payload: payload) else {
            // Changed since it was checked: judged again from its bytes now.
            dropHead(name)
            try loadHead(name, floor: number)
            return logs[name]?.deferred == true ? .skipped : .damaged
        }
        let item: ReceivedItem
        do {
            let record = try ItemRecord.decode(payload, path: where_)
            if !record.attachments.isEmpty {
                throw ShareInboxError.invalidInboxItem(field: where_, problem: "a journal record lists attachments")
            }
            item = record.received(sequenceNumber: number, directory: inbox.journalDirectory)
        } catch {
            dropHead(name)
            guard try quarantine(name, from: log.cursor, to: log.cursor + header.recordSize, because: "a record that is not a valid item (\(error))") else { return .skipped }
            try loadHead(name, floor: number)
            return .damaged
        }
        guard prepareCursor(name) else { return .skipped }
        return .item(item, log: name)
    }

    /// The cached payload of `name`'s head, removed from the cache.
    func takePayload(_ name: String) -> (offset: Int64, data: Data)? {
        guard let cached = payloads.removeValue(forKey: name) else { return nil }
        payloadBytes -= cached.data.count
        return cached
    }

    func dropHead(_ name: String) {
        _ = takePayload(name)
        guard let head = logs[name]?.head else { return }
        heads[head.number] = nil
        logs[name]?.head = nil
    }

    /// Records that the handler returned for the head of `log`: its cursor passes
    /// the record (a pwrite on the descriptor ``entry(_:)`` opened) before anything
    /// else, then the next head is loaded.
    func delivered(_ number: UInt64, log name: String) throws {
        guard let head = logs[name]?.head, head.number == number, let cursor = logs[name]?.cursor else { return }
        try setCursor(name, to: cursor + head.recordSize)
        heads[number] = nil
        logs[name]?.head = nil
        logs[name]?.lastNumber = number
        try loadHead(name, floor: number)
    }

    /// Stops reading `name` for the rest of this drain, leaving it as it is: its
    /// head is forgotten (the walk passes its number), its descriptors closed.
    func deferLog(_ name: String, because problem: String) {
        guard let log = logs[name], !log.deferred else { return }
        dropHead(name)
        closeDescriptors(of: name)
        logs[name]?.deferred = true
        Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) is left for a later drain: \(problem). "
                         + "Nothing was set aside; its items stay in place")
    }

    /// At the end of a drain: syncs the cursors, then removes each log whose writer
    /// is gone and whose records are all delivered (while holding the log's lock),
    /// then, once that removal is synced, their cursors and cursors left without a log.
    /// Zeros past the cursor are a tail written ahead, not records; bytes past such
    /// zeros (never a writer's: it writes its records one after another) are
    /// passed to: the cursor moves to them and the next drain judges them.
    func finish() throws {
        try syncCursors()
        var removed: [String] = []
        for (name, log) in logs where !log.deferred && log.head == nil && log.cursor >= log.end {
            guard let probe = try? journal.openExistingFile(name, writing: true) else { continue }
            defer { probe.unlockAndClose() }
            guard let identity = try? probe.currentIdentity(), identity.inode == log.inode, identity.device == log.device,
                  identity.size >= log.cursor, (try? probe.tryLockExclusively()) == true else { continue }
            // Locked: its writer is gone (or has not locked it yet, and then finds it
            // unlinked and makes another); it can no longer grow. What follows the
            // cursor is read after the lock.
            let data: Int64?
            do {
                let size = try probe.currentIdentity().size
                guard size >= log.cursor else { continue }
                data = try JournalLogEnd.firstData(in: probe, from: log.cursor, size: size)
            } catch {
                continue
            }
            if let data {
                // A record its writer appended after the last look (data == cursor) waits
                // for the next drain; so do bytes past zeros, once the cursor is on them.
                if data > log.cursor { try? setCursor(name, to: data) }
                continue
            }
            if (try? journal.remove(name, durable: false)) == true { removed.append(name) }
        }
        try? syncCursors()
        // The cursors go only once the logs' removal is on disk: a power loss that
        // brought a log back without its cursor would deliver the whole log again.
        // A cursor that comes back without its log is removed by a later drain.
        if !removed.isEmpty && inbox.durable { try? journal.sync() }
        for name in removed { _ = try? journal.remove(JournalCursor.name(forLog: name), durable: false) }
        for name in orphanCursors {
            // Again now: a writer makes its log, then its cursor, and a listing may
            // have caught the cursor but not the log.
            let log = String(decoding: name.utf8.dropLast(JournalCursor.suffix.utf8.count), as: UTF8.self) + JournalCursor.logSuffix
            guard (try? journal.hasEntry(log)) == false else { continue }
            _ = try? journal.remove(name, durable: false)
        }
    }
}
