import AppGroupContainer
import Foundation

/// Read-only walks over the journal's records, for counting and listing pending
/// items and for finding the highest number given out: no lock taken, nothing
/// written, so they never delay an enqueue or a drain. Only whole, checked records
/// count (``JournalScanner``): damage is passed to the next whole record, never
/// believed. A record still being written reads as cut short and ends that log's
/// walk (it counts next time).
enum JournalScan {
    /// Calls `body` with the number, the checked payload and the place of every
    /// whole record in every log: from each log's cursor (records not yet
    /// delivered), or from its start with `fromStart`. A link or a FIFO under a
    /// log's name is passed (the next drain sets it aside); `damaged` is called for
    /// each stretch of bytes passed.
    /// - Throws: when a log cannot be opened or read (EMFILE, EIO...): a walk that
    ///   went on would count less than there is.
    static func forEachRecord(of inbox: ShareInbox, fromStart: Bool,
                              damaged: (_ location: String) -> Void = { _ in },
                              _ body: (_ number: UInt64, _ payload: Data, _ location: String) throws -> Void) throws {
        guard let journal = try DirectoryHandle.open(inbox.journalDirectory, below: inbox.root) else { return }
        var names: [String] = []
        try journal.forEachEntry { name in if JournalCursor.isLogName(name) { names.append(name) } }
        let budget = JournalScanBudget()
        for name in names {
            let file: OpenFile
            do {
                guard let opened = try journal.openExistingFile(name) else { continue }
                file = opened
            } catch {
                if InboxFailure.isWrongKind(error) {
                    continue
                } else {
                    throw error
                }
            }
            defer { file.close() }
            let identity = try file.currentIdentity()
            var offset = fromStart ? 0 : try JournalCursor.read(forLog: name, in: journal, device: identity.device, inode: identity.inode,
                                                                 end: identity.size, inbox: inbox.directory.path)
            // Past the records' end there is only a zero tail written ahead (or a
            // record being written: it reads as cut short and ends this log's walk).
            let end = try JournalLogEnd.find(in: file, from: offset, size: identity.size).end
            let scanner = JournalScanner(file: file, end: end, budget: budget)
            walk: while offset < end {
                switch try scanner.next(at: offset) {
                case .record(let header):
                    let payload = try file.read(header.length, at: offset + Int64(header.headerSize))
                    try body(header.number, payload, "\(journal.path)/\(name) at byte \(offset)")
                    offset += header.recordSize
                case .damaged(let upTo):
                    damaged("\(journal.path)/\(name) at bytes \(offset)..<\(upTo)")
                    offset = upTo
                case .unfinished, .none:
                    break walk
                }
            }
        }
    }

    /// The highest number of a checked record in any log (delivered or not) that
    /// is believable with the counter at `base` (see ``ShareInbox/isPlausible(_:after:)``);
    /// 0 when none.
    static func highestNumber(of inbox: ShareInbox, base: UInt64) throws -> UInt64 {
        var highest: UInt64 = 0
        try forEachRecord(of: inbox, fromStart: true) { number, _, _ in
            if ShareInbox.isPlausible(number, after: base) { highest = max(highest, number) }
        }
        return highest
    }
}
