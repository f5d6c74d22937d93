import AppGroupContainer
import Foundation

/// The journal as the one drain holding its consumer lock reads it: every log's
/// next undelivered record (its head), found by number, so the drain merges the
/// logs with `Items/` into one walk in number order.
///
/// Memory stays bounded whatever the backlog: per log, only its head's header is
/// kept; a payload is read when its number comes up. Descriptors too: at most
/// ``openLimit`` logs are open at once, others are reopened by name (and their
/// inode checked) when needed.
final class JournalReader {
    /// What is known of one log.
    struct Log {
        let name: String
        let device: UInt64
        let inode: UInt64
        var file: OpenFile?
        var cursorFile: OpenFile?
        /// Its size at the last refresh (taken under the sequence lock: every
        /// record below it is whole, unless its writer failed or died mid-write).
        var end: Int64
        /// Delivered up to here: the offset of the head, when there is one.
        var cursor: Int64
        var head: JournalRecord.Header?
        /// The number of the last record taken from this log in this drain.
        var lastNumber: UInt64?
        var cursorDirty = false
    }

    static let consumerLockName = ".consumer.lock"
    /// Logs kept open at once (each with its cursor).
    static let openLimit = 64

    let inbox: ShareInbox
    let journal: DirectoryHandle
    private let consumerLock: OpenFile
    private var logs: [String: Log] = [:]
    private var heads: [UInt64: String] = [:]
    private var openCount = 0
    /// Logs in the order their descriptors were opened: the oldest are closed first.
    private var openOrder: [String] = []
    private var openOrderStart = 0
    /// Cursor files created since the last sync of `Journal/`.
    private var createdCursors = false
    /// Cursor names seen without their log (a drain killed between the two removals).
    private var orphanCursors: [String] = []
    /// The highest fresh number ``renumber(_:header:because:)`` gave out.
    private var renumbered: UInt64?

    private init(inbox: ShareInbox, journal: DirectoryHandle, consumerLock: OpenFile) {
        self.inbox = inbox
        self.journal = journal
        self.consumerLock = consumerLock
    }

    /// The journal's reader for this drain, or nil when another drain (in any
    /// process, or this one's outer drain) holds the consumer lock: never waits.
    /// Something planted as `Journal/` or as its lock file (a file, a link, a
    /// FIFO, a directory) is moved to `Quarantine/` with a warning and made again:
    /// refusing would stop every drain, `Items/` included, for good.
    static func open(_ inbox: ShareInbox) throws -> JournalReader? {
        let journal: DirectoryHandle
        do {
            guard let opened = try DirectoryHandle.open(inbox.journalDirectory) else { return nil }
            journal = opened
        } catch {
            let path = inbox.journalDirectory.path
            guard let status = try FileOperations.status(path), !status.isDirectory else { throw error }
            try setAside(path, of: inbox, label: "journal-Journal", because: "a \(status.kind) stood where the journal directory belongs (\(error))")
            try TrustedDirectory.make(path)
            guard let made = try DirectoryHandle.open(inbox.journalDirectory) else { return nil }
            journal = made
        }
        let lock: OpenFile
        do {
            lock = try journal.openOrCreateFile(consumerLockName)
        } catch {
            let path = journal.path + "/" + consumerLockName
            guard let status = try FileOperations.status(path), !status.isRegular else { throw error }
            try setAside(path, of: inbox, label: "journal-" + consumerLockName, because: "a \(status.kind) stood where the journal's lock file belongs (\(error))")
            lock = try journal.openOrCreateFile(consumerLockName)
        }
        do {
            guard try lock.tryLockExclusively() else { lock.close(); return nil }
        } catch {
            lock.close()
            throw error
        }
        return JournalReader(inbox: inbox, journal: journal, consumerLock: lock)
    }

    private static func setAside(_ path: String, of inbox: ShareInbox, label: String, because problem: String) throws {
        let aside = try inbox.moveToQuarantine(path, label: label)
        Diagnostics.warn("share inbox \(inbox.directory.path): \(path) was moved to \(aside) and made again: \(problem). Do not create files in Journal/ by hand")
    }

    deinit {
        for log in logs.values { log.file?.close(); log.cursorFile?.close() }
        consumerLock.close()
    }

    // MARK: Refresh

    /// Lists `Journal/` and notes how far each log goes now. Call it under the
    /// sequence file's shared lock: every record below a log's end is then whole
    /// (unless its writer failed or died mid-write). The heads are read from there
    /// after the lock (``loadHeads(floor:)``), so enqueues do not wait for them.
    func measureLogs() throws {
        var listed = Set<String>()
        var cursors: [String] = []
        try journal.forEachEntry { name in
            if JournalCursor.isLogName(name) { listed.insert(name) } else if JournalCursor.isCursorName(name) { cursors.append(name) }
        }
        for name in logs.keys where !listed.contains(name) { forget(name) }
        for name in listed {
            if logs[name] == nil { try discover(name) } else { try measure(name) }
        }
        let logNames = Set(listed.map { JournalCursor.name(forLog: $0) })
        orphanCursors = cursors.filter { !logNames.contains($0) }
    }

    /// Loads the head of each log that has none, below the end ``measureLogs()``
    /// noted. Records numbered below `floor` (passed by the walk already) or twice
    /// are out of order (see ``loadHead(_:floor:)``). Returns the highest head, or
    /// the highest fresh number given out meanwhile if higher (the Sequence file
    /// read under the lock is then behind it).
    func loadHeads(floor: UInt64) throws -> UInt64? {
        renumbered = nil
        for name in Array(logs.keys) where logs[name]?.head == nil { try loadHead(name, floor: floor) }
        return [heads.keys.max(), renumbered].compactMap { $0 }.max()
    }

    /// Starts following a log found in `Journal/`. Something that is not a regular
    /// file under a log's name (a link, a FIFO...) is moved to `Quarantine/`.
    private func discover(_ name: String) throws {
        let file: OpenFile
        do {
            guard let opened = try journal.openExistingFile(name) else { return }
            file = opened
        } catch where error is AppGroupError {
            setAside(name, because: "it is not a regular file (\(error))")
            return
        }
        let identity = try file.currentIdentity()
        let cursor = JournalCursor.read(forLog: name, in: journal, device: identity.device, inode: identity.inode,
                                        end: identity.size, inbox: inbox.directory.path)
        logs[name] = Log(name: name, device: identity.device, inode: identity.inode, file: file, end: identity.size, cursor: cursor)
        openCount += 1
        try evictIfNeeded(keeping: name)
    }

    /// Notes a known log's size now.
    private func measure(_ name: String) throws {
        guard let file = try self.file(of: name) else { return }
        logs[name]?.end = try file.currentIdentity().size
    }

    private func forget(_ name: String) {
        guard let log = logs.removeValue(forKey: name) else { return }
        if let head = log.head { heads[head.number] = nil }
        close(log)
    }

    private func close(_ log: Log) {
        if log.file != nil || log.cursorFile != nil { openCount -= 1 }
        log.file?.close()
        if let cursor = log.cursorFile {
            if log.cursorDirty && inbox.durable { try? cursor.sync() }
            cursor.close()
        }
    }

    /// The log's descriptor, reopened by name when it was closed to save
    /// descriptors; nil (and the log forgotten) when its name now names another file.
    private func file(of name: String) throws -> OpenFile? {
        guard let log = logs[name] else { return nil }
        if let file = log.file { return file }
        guard let file = try? journal.openExistingFile(name) else { forget(name); return nil }
        let identity = try file.currentIdentity()
        guard identity.device == log.device, identity.inode == log.inode else { file.close(); forget(name); return nil }
        logs[name]?.file = file
        if log.cursorFile == nil { openCount += 1 }
        try evictIfNeeded(keeping: name)
        return file
    }

    private func evictIfNeeded(keeping kept: String) throws {
        openOrder.append(kept)
        while openCount > Self.openLimit && openOrderStart < openOrder.count {
            let name = openOrder[openOrderStart]
            openOrderStart += 1
            guard name != kept, let log = logs[name], log.file != nil || log.cursorFile != nil else { continue }
            close(log)
            logs[name]?.file = nil
            logs[name]?.cursorFile = nil
            logs[name]?.cursorDirty = false
        }
        if openOrderStart > 4096 && openOrderStart * 2 > openOrder.count {
            openOrder.removeFirst(openOrderStart)
            openOrderStart = 0
        }
    }

    // MARK: Heads

    /// The lowest head numbered at least `floor`.
    func lowestHead(atLeast floor: UInt64) -> UInt64? {
        var lowest: UInt64?
        for number in heads.keys where number >= floor && lowest.map({ number < $0 }) ?? true { lowest = number }
        return lowest
    }

    /// Reads the header at the log's cursor and makes it the log's head; damage is
    /// quarantined and passed (see ``quarantine(_:from:to:because:)``).
    private func loadHead(_ name: String, floor: UInt64) throws {
        while let log = logs[name], log.head == nil, log.cursor < log.end {
            guard let file = try file(of: name) else { return }
            let available = log.end - log.cursor
            let bytes = try file.read(JournalRecord.headerSize, at: log.cursor)
            switch JournalRecord.header(bytes, available: available) {
            case .success(let header):
                var problem: String?
                if let last = log.lastNumber, header.number <= last {
                    problem = "its number \(header.number) is not above the \(last) before it in the same log"
                } else if header.number < floor {
                    problem = "its number \(header.number) is below \(floor), where this drain already is"
                } else if let other = heads[header.number] {
                    problem = "its number \(header.number) is also the number of the next record of \(other)"
                }
                if let problem {
                    // A whole record out of order goes alone; bytes that only look
                    // like a header go up to the next whole record.
                    let whole = try isWholeRecord(file, at: log.cursor, end: log.end)
                    // In order within its log but its number given out twice, or after
                    // the drain passed it (a Sequence file rewound): the item is kept,
                    // under a fresh number, as a put-back in Items/ would be.
                    let inOrder = log.lastNumber.map { header.number > $0 } ?? true
                    if whole && inOrder && (header.number < floor || heads[header.number] != nil) {
                        if try renumber(name, header: header, because: problem) { continue }
                    }
                    let next = whole ? log.cursor + header.recordSize : try nextRecord(in: name, after: log.cursor, end: log.end)
                    try quarantine(name, from: log.cursor, to: next, because: (whole ? "a record out of order: " : "damaged bytes (") + problem + (whole ? "" : ")"))
                    continue
                }
                logs[name]?.head = header
                heads[header.number] = name
            case .failure(.incomplete):
                // Still being written only if its writer lives (it holds the log's lock).
                guard try writerIsGone(name) else { return }
                try quarantine(name, from: log.cursor, to: log.end, because: "a record cut short at the end of a log whose writer is gone")
            case .failure(let damage):
                let next = try nextRecord(in: name, after: log.cursor, end: log.end)
                try quarantine(name, from: log.cursor, to: next, because: "\(damage), up to the next whole record")
            }
        }
    }

    /// The offset of the first whole record (magic, header and checksum right)
    /// after `offset`, or `end` when there is none: where reading resumes after
    /// damage, so one bad stretch never costs the records behind it. Reads in
    /// chunks (constant memory).
    private func nextRecord(in name: String, after offset: Int64, end: Int64) throws -> Int64 {
        guard let file = try file(of: name) else { return end }
        let chunk = 1 << 16
        var start = offset + 1
        while start < end {
            let bytes = try file.read(Int(min(Int64(chunk + 3), end - start)), at: start)
            if bytes.count < 4 { break }
            var index = bytes.startIndex
            while index + 4 <= bytes.endIndex {
                if bytes[index] == JournalRecord.magic[0], bytes[index..<index + 4].elementsEqual(JournalRecord.magic) {
                    let candidate = start + Int64(index - bytes.startIndex)
                    if try isWholeRecord(file, at: candidate, end: end) { return candidate }
                }
                index += 1
            }
            start += Int64(chunk)
        }
        return end
    }

    private func isWholeRecord(_ file: OpenFile, at offset: Int64, end: Int64) throws -> Bool {
        let bytes = try file.read(JournalRecord.headerSize, at: offset)
        guard case let .success(header) = JournalRecord.header(bytes, available: end - offset) else { return false }
        let payload = try file.read(header.length, at: offset + Int64(JournalRecord.headerSize))
        return payload.count == header.length
            && JournalRecord.checksum(length: UInt32(header.length), number: header.number, payload: payload) == header.checksum
    }

    /// Publishes the item at the head of `name` in `Items/` under a fresh number,
    /// then moves the log's cursor past it (a kill in between delivers it twice,
    /// never loses it). False when it is not a valid item: then it is quarantined.
    private func renumber(_ name: String, header: JournalRecord.Header, because problem: String) throws -> Bool {
        guard let log = logs[name], let file = try file(of: name) else { return false }
        let payload = try file.read(header.length, at: log.cursor + Int64(JournalRecord.headerSize))
        guard let record = try? ItemRecord.decode(payload, path: journal.path + "/" + name), record.attachments.isEmpty else { return false }
        let staging = try inbox.makeStagingDirectory()
        do {
            let copy = try OpenFile.createNew(staging.appendingPathComponent(ShareInbox.recordFileName).path)
            defer { copy.close() }
            try copy.write(payload)
            if inbox.durable { try copy.sync() }
        } catch {
            try? ShareInbox.removeTree(staging.path)
            throw error
        }
        let fresh = try inbox.publish(staging: staging)
        renumbered = max(renumbered ?? fresh, fresh)
        Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) holds at byte \(log.cursor) \(problem) "
                         + "(the Sequence file was rewound); that item is kept as item \(fresh)")
        try setCursor(name, to: log.cursor + header.recordSize)
        return true
    }

    /// True when no process holds the log's lock (its writer closed it or died).
    private func writerIsGone(_ name: String) throws -> Bool {
        guard let probe = try? journal.openExistingFile(name, writing: true) else { return true }
        defer { probe.close() }
        return try probe.tryLockExclusively()
    }

    // MARK: Delivery

    /// What the journal holds under `number`.
    enum Entry {
        /// The item, read and checked, with the log it came from.
        case item(ReceivedItem, log: String)
        /// A record with that number was damaged: quarantined and passed.
        case damaged
    }

    /// The journal's record numbered `number` when it is some log's head; nil otherwise.
    func entry(_ number: UInt64) throws -> Entry? {
        guard let name = heads[number], let log = logs[name], let header = log.head else { return nil }
        guard let file = try file(of: name) else { return .damaged }
        let payload = try file.read(header.length, at: log.cursor + Int64(JournalRecord.headerSize))
        let where_ = "\(journal.path)/\(name) at byte \(log.cursor)"
        guard payload.count == header.length,
              JournalRecord.checksum(length: UInt32(header.length), number: number, payload: payload) == header.checksum else {
            try dropHead(name)
            // Its length may be the damaged part: what follows is found by its framing.
            let next = try nextRecord(in: name, after: log.cursor, end: log.end)
            try quarantine(name, from: log.cursor, to: next, because: "a record whose checksum does not match its bytes, up to the next whole record")
            try loadHead(name, floor: number)
            return .damaged
        }
        do {
            let record = try ItemRecord.decode(payload, path: where_)
            if !record.attachments.isEmpty {
                throw ShareInboxError.invalidInboxItem(field: where_, problem: "a journal record lists attachments")
            }
            return .item(record.received(sequenceNumber: number, directory: inbox.journalDirectory), log: name)
        } catch {
            try dropHead(name)
            try quarantine(name, from: log.cursor, to: log.cursor + header.recordSize, because: "a record that is not a valid item (\(error))")
            try loadHead(name, floor: number)
            return .damaged
        }
    }

    private func dropHead(_ name: String) throws {
        guard let head = logs[name]?.head else { return }
        heads[head.number] = nil
        logs[name]?.head = nil
    }

    /// Records that the handler returned for the head of `log`: its cursor passes
    /// the record (pwrite) before anything else, then the next head is loaded.
    func delivered(_ number: UInt64, log name: String) throws {
        guard let head = logs[name]?.head, head.number == number, let cursor = logs[name]?.cursor else { return }
        try setCursor(name, to: cursor + head.recordSize)
        heads[number] = nil
        logs[name]?.head = nil
        logs[name]?.lastNumber = number
        try loadHead(name, floor: number)
    }

    private func setCursor(_ name: String, to offset: Int64) throws {
        guard let log = logs[name] else { return }
        var cursorFile = log.cursorFile
        var openedHere = false
        if cursorFile == nil {
            let cursorName = JournalCursor.name(forLog: name)
            var existed: Bool
            do {
                existed = try journal.identity(of: cursorName) != nil
            } catch {
                // A link or a FIFO where the cursor belongs: set aside, a real one made.
                setAside(cursorName, because: "it is not a regular file (\(error))")
                existed = false
            }
            cursorFile = try journal.openOrCreateFile(cursorName)
            if !existed { createdCursors = true }
            logs[name]?.cursorFile = cursorFile
            if log.file == nil {
                openCount += 1
                openedHere = true
            }
        }
        guard let cursorFile else { return }
        try cursorFile.write(JournalCursor.encode(offset: offset, device: log.device, inode: log.inode), at: 0)
        logs[name]?.cursor = offset
        logs[name]?.cursorDirty = true
        if openedHere { try evictIfNeeded(keeping: name) }
    }

    /// fsyncs the cursors written since the last call (and `Journal/` when one was created).
    func syncCursors() throws {
        guard inbox.durable else { return }
        for (name, log) in logs where log.cursorDirty {
            try log.cursorFile?.sync()
            logs[name]?.cursorDirty = false
        }
        if createdCursors {
            try journal.sync()
            createdCursors = false
        }
    }

    // MARK: Damage and cleanup

    /// Copies bytes `from..<to` of a log to `Quarantine/<log>-<offset>`, warns, and
    /// moves the log's cursor past them: nothing readable is dropped, and the
    /// items behind still flow.
    private func quarantine(_ name: String, from: Int64, to: Int64, because problem: String) throws {
        let label = "\(name)-\(from)"
        var aside = inbox.quarantineDirectory.appendingPathComponent(label).path
        if let file = try file(of: name) {
            var copy: OpenFile?
            for _ in 0..<8 where copy == nil {
                do { copy = try OpenFile.createNew(aside) } catch where FileOperations.isNameTaken(error) {
                    aside = inbox.quarantineDirectory.appendingPathComponent(label + "-" + JournalWriter.hex16(UInt64.random(in: 0...UInt64.max))).path
                }
            }
            if let copy {
                defer { copy.close() }
                var offset = from
                while offset < to {
                    let chunk = try file.read(Int(min(to - offset, 1 << 16)), at: offset)
                    if chunk.isEmpty { break }
                    try copy.write(chunk)
                    offset += Int64(chunk.count)
                }
                if inbox.durable { try copy.sync() }
            }
        }
        Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) holds \(problem) at bytes \(from)..<\(to); "
                         + "they were copied to \(aside) and passed, and the items around them are delivered. Look there for an item to add by hand")
        try setCursor(name, to: to)
    }

    /// Moves an entry that is not a log into `Quarantine/`, with a warning.
    private func setAside(_ name: String, because problem: String) {
        let path = journal.path + "/" + name
        do {
            let aside = try inbox.moveToQuarantine(path, label: "journal-" + name)
            Diagnostics.warn("share inbox \(inbox.directory.path): \(path) was moved to \(aside): \(problem)")
        } catch {
            Diagnostics.warn("share inbox \(inbox.directory.path): \(path) is ignored: \(problem); it could not be moved aside either (\(error))")
        }
    }

    /// At the end of a drain: syncs the cursors, then removes each log whose writer
    /// is gone and whose records are all delivered (while holding the log's lock),
    /// then, once that removal is synced, their cursors and cursors left without a log.
    func finish() throws {
        try syncCursors()
        var removed: [String] = []
        for (name, log) in logs where log.head == nil && log.cursor >= log.end {
            guard let probe = try? journal.openExistingFile(name, writing: true) else { continue }
            defer { probe.close() }
            guard let identity = try? probe.currentIdentity(), identity.inode == log.inode, identity.device == log.device,
                  identity.size == log.cursor, (try? probe.tryLockExclusively()) == true else { continue }
            // Locked: its writer is gone (or has not locked it yet, and then finds it
            // unlinked and makes another); it can no longer grow.
            guard (try? probe.currentIdentity().size) == log.cursor else { continue }
            if (try? journal.remove(name, durable: false)) == true { removed.append(name) }
        }
        // The cursors go only once the logs' removal is on disk: a power loss that
        // brought a log back without its cursor would deliver the whole log again.
        // A cursor that comes back without its log is removed by a later drain.
        if !removed.isEmpty && inbox.durable { try? journal.sync() }
        for name in removed { _ = try? journal.remove(JournalCursor.name(forLog: name), durable: false) }
        for name in orphanCursors { _ = try? journal.remove(name, durable: false) }
    }
}
