import AppGroupContainer
import Foundation

extension ShareInbox {
    /// The items waiting in the inbox, in enqueue order, read without claiming,
    /// moving or removing any: what the next drain would deliver. For inspection
    /// (the `appgroup pending` command, a test's assertions).
    ///
    /// It takes no lock and writes nothing, so it never delays an enqueue or a drain.
    /// What it returns is a snapshot: an item a drain claims while this reads is left
    /// out, and items a drain holds (its own, running or died and not yet put back)
    /// are not listed. The attachment URLs point into the inbox and stay valid only
    /// until the item is drained. An item whose record cannot be read is left out
    /// with a warning through `Diagnostics.handler`; it stays in place, and the next
    /// drain moves it to `Quarantine/`.
    /// - Throws: file-system errors reading `Items/`.
    public func pendingItems() throws -> [ReceivedItem] {
        try ShareInboxError.passingUp { try listPending() }
    }

    /// ``pendingItems()``'s work.
    func listPending() throws -> [ReceivedItem] {
        try AtomicFile.requireContainedDirectory(directory, below: root)
        var numbers: [UInt64] = []
        try FileOperations.forEachEntry(in: itemsDirectory.path) { name in
            if let n = InboxNames.sequenceNumber(name) { numbers.append(n) }
        }
        numbers.sort()
        var items: [ReceivedItem] = []
        let inbox = directory.path
        try JournalScan.forEachRecord(of: self, fromStart: false, damaged: { location in
            Diagnostics.warn("share inbox \(inbox): \(location) holds bytes that are no whole record; they are not listed "
                             + "(the next drain copies them to Quarantine/)")
        }) { number, payload, location in
            do {
                let record = try ItemRecord.decode(payload, path: location)
                items.append(record.received(sequenceNumber: number, directory: journalDirectory))
            } catch {
                Diagnostics.warn("share inbox \(directory.path): pending item \(number) cannot be read and is not listed "
                                 + "(the next drain copies it to Quarantine/): \(error)")
            }
        }
        for number in numbers {
            let item = itemsDirectory.appendingPathComponent(InboxNames.itemName(number))
            do {
                // A file is an item without attachments; a directory holds the record and the files.
                guard let status = try FileOperations.status(item.path) else { continue } // claimed meanwhile
                let isFile = status.isRegular
                let recordURL = isFile ? item : item.appendingPathComponent(Self.recordFileName, isDirectory: false)
                guard let data = try AtomicFile.read(recordURL, below: root, limit: ItemRecord.readLimit) else { continue }
                let record = try ItemRecord.decode(data, path: recordURL.path)
                items.append(record.received(sequenceNumber: number, directory: item))
            } catch {
                if error is ShareInboxError || error is AppGroupError {
                    // Claimed between the lstat and the read: gone, not unreadable.
                    if try FileOperations.status(item.path) == nil { continue }
                    Diagnostics.warn("share inbox \(directory.path): pending item \(number) cannot be read and is not listed "
                                     + "(the next drain moves it to Quarantine/): \(error)")
                } else {
                    throw error
                }
            }
        }
        return items.sorted { $0.sequenceNumber < $1.sequenceNumber }
    }
}
