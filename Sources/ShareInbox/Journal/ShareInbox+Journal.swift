import AppGroupContainer
import Foundation

extension ShareInbox {
    /// Where items without attachments are journaled (see the type's layout).
    var journalDirectory: URL { paths.journalDirectory }

    /// Publishes an item without attachments: under the sequence lock, its number
    /// is stored and its record appended to this instance's log with one write;
    /// after the lock, one fdatasync when `durable`. No file is created, renamed or
    /// unlinked per item, so the enqueue costs less than a bare durable file.
    ///
    /// A write that fails or is cut short leaves its number unused (a gap, as a
    /// killed enqueue leaves); the log is closed at once and never appended to
    /// again, so a drain judges a partial record at its end as damage (its writer
    /// is gone) and reads everything before it.
    func enqueueToJournal(_ payload: Data, inbox: DirectoryHandle) throws -> UInt64 {
        return try journalWriter.withLog { slot in
            let log = try JournalWriter.usableLog(&slot, needing: JournalRecord.headerSize + payload.count, inbox: inbox,
                                                  durable: durable, inboxPath: directory.path,
                                                  repairJournal: { try repairDirectory("Journal") })
            let number = try publish(inbox: inbox, placeNumber: { number in
                // The sequence file said less than this log holds (edited, restored
                // from a backup...): as a name taken in Items/, it makes the
                // numbering trust the disk from now on.
                if let last = slot?.lastNumber, number <= last {
                    throw FileOperations.nameTakenError(log.file.path, operation: "append")
                }
                // Nor may a number name an entry in Items/ (planted, or left by an
                // older version): the one lstat an item's rename would have made.
                let name = "Items/" + InboxNames.itemName(number)
                if try inbox.hasEntry(name) { throw FileOperations.nameTakenError(inbox.path + "/" + name, operation: "append") }
                let record = JournalRecord.encode(number: number, payload: payload)
                do {
                    try log.file.write(record)
                } catch {
                    log.file.unlockAndClose()
                    slot = nil
                    throw error
                }
                slot?.size += Int64(record.count)
                slot?.lastNumber = number
            })
            guard durable else { return number }
            do {
                try log.file.syncData()
            } catch let AppGroupError.systemCall(operation, path, code) {
                // Published (a drain reads it), only not known to be on disk.
                throw AppGroupError.notDurable(path: path, operation: operation, errno: code)
            }
            return number
        }
    }
}
