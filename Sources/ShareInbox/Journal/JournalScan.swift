import AppGroupContainer
import Foundation

/// Read-only walks over the journal's records, for counting and listing pending
/// items and for finding the highest number given out: no lock taken, nothing
/// written, so they never delay an enqueue or a drain. A record still being
/// written reads as cut short and ends that log's walk (it counts next time).
enum JournalScan {
    /// Calls `body` with the number and (with `payloads`) the checked payload of
    /// every whole record in every log: from each log's cursor (records not yet
    /// delivered), or from its start with `fromStart`. A record whose checksum does
    /// not match gets a nil payload; a log whose framing is lost is left there.
    static func forEachRecord(of inbox: ShareInbox, fromStart: Bool, payloads: Bool,
                              _ body: (_ number: UInt64, _ payload: Data?, _ location: String) throws -> Void) throws {
        guard let journal = try DirectoryHandle.open(inbox.journalDirectory) else { return }
        var names: [String] = []
        try journal.forEachEntry { name in if JournalCursor.isLogName(name) { names.append(name) } }
        for name in names {
            // A link, a FIFO... under a log's name: the next drain sets it aside.
            guard let file = try? journal.openExistingFile(name) else { continue }
            defer { file.close() }
            let identity = try file.currentIdentity()
            var offset = fromStart ? 0 : JournalCursor.read(forLog: name, in: journal, device: identity.device, inode: identity.inode,
                                                             end: identity.size, inbox: inbox.directory.path)
            while offset < identity.size {
                let bytes = try file.read(JournalRecord.headerSize, at: offset)
                guard case let .success(header) = JournalRecord.header(bytes, available: identity.size - offset) else { break }
                var payload: Data?
                if payloads {
                    let data = try file.read(header.length, at: offset + Int64(JournalRecord.headerSize))
                    if JournalRecord.checksum(length: UInt32(header.length), number: header.number, payload: data) == header.checksum { payload = data }
                }
                try body(header.number, payload, "\(journal.path)/\(name) at byte \(offset)")
                offset += header.recordSize
            }
        }
    }

    /// The highest number recorded in any log (delivered or not); 0 when none.
    static func highestNumber(of inbox: ShareInbox) throws -> UInt64 {
        var highest: UInt64 = 0
        try forEachRecord(of: inbox, fromStart: true, payloads: false) { number, _, _ in highest = max(highest, number) }
        return highest
    }
}
