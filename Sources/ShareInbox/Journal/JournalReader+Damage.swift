import AppGroupContainer
import Foundation

// What the journal reader does with what is not a deliverable record: bytes that
// are no record are copied to Quarantine/ and passed; a whole item whose number
// cannot stand is published again under a fresh one; an entry that is not a log
// is moved aside. Each first makes sure it can finish (the cursor open, the copy
// whole): what cannot be done now defers the log, and nothing is passed that was
// not kept.
extension JournalReader {
    /// Copies bytes `from..<to` of a log to `Quarantine/<log>-<offset>`, warns, and
    /// moves the log's cursor past them: nothing readable is dropped, and the items
    /// behind still flow. False (the log deferred, nothing passed) when the copy or
    /// the cursor cannot be made now: a full disk, no descriptor.
    ///
    /// Zeros at the start of the bytes are a tail written ahead (``JournalLogEnd``),
    /// not damage: they are passed without a copy, and bytes that are all zeros
    /// without a warning either.
    func quarantine(_ name: String, from start: Int64, to: Int64, because problem: String) throws -> Bool {
        guard prepareCursor(name), let file = file(of: name) else { return false }
        let from: Int64
        do {
            guard let data = try JournalLogEnd.firstData(in: file, from: start, size: to) else {
                try setCursor(name, to: to)
                return true
            }
            from = data
        } catch {
            deferLog(name, because: "\(problem) at bytes \(start)..<\(to) cannot be read now (\(error))")
            return false
        }
        let label = "\(name)-\(from)"
        var aside = inbox.quarantineDirectory.appendingPathComponent(label).path
        do {
            var copy: OpenFile?
            for _ in 0..<8 where copy == nil {
                do { copy = try OpenFile.createNew(aside) } catch {
                    if FileOperations.isNameTaken(error) {
                        aside = inbox.quarantineDirectory.appendingPathComponent(label + "-" + JournalWriter.hex16(UInt64.random(in: 0...UInt64.max))).path
                    } else {
                        throw error
                    }
                }
            }
            guard let copy else { throw FileOperations.nameTakenError(aside, operation: "open") }
            do {
                defer { copy.close() }
                var offset = from
                while offset < to {
                    let chunk = try file.read(Int(min(to - offset, 1 << 16)), at: offset)
                    if chunk.isEmpty { break }
                    try copy.write(chunk)
                    offset += Int64(chunk.count)
                }
                if inbox.durable { try copy.sync() }
            } catch {
                _ = try? FileOperations.removeFile(aside)
                throw error
            }
            try setCursor(name, to: to)
        } catch {
            deferLog(name, because: "\(problem) at bytes \(from)..<\(to) cannot be copied to Quarantine/ now (\(error))")
            return false
        }
        Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) holds \(problem) at bytes \(from)..<\(to); "
                         + "they were copied to \(aside) and passed, and the items around them are delivered. Look there for an item to add by hand")
        return true
    }

    /// What ``renumber(_:header:because:)`` did.
    enum Renumbering {
        /// Published under a fresh number; the cursor passed the record.
        case kept
        /// The record is not a valid item: the caller quarantines it.
        case notAnItem
        /// It could not be published now: the log is deferred.
        case deferred
    }

    /// Publishes the item at the head of `name` in `Items/` under a fresh number,
    /// then moves the log's cursor past it (a kill in between delivers it twice,
    /// never loses it).
    func renumber(_ name: String, header: JournalRecord.Header, because problem: String) throws -> Renumbering {
        guard let log = logs[name], let file = file(of: name) else { return .deferred }
        let payload: Data
        do {
            payload = try file.read(header.length, at: log.cursor + Int64(header.headerSize))
        } catch {
            deferLog(name, because: "its record at byte \(log.cursor) cannot be read (\(error))")
            return .deferred
        }
        guard let record = try? ItemRecord.decode(payload, path: journal.path + "/" + name), record.attachments.isEmpty else { return .notAnItem }
        guard prepareCursor(name) else { return .deferred }
        let fresh: UInt64
        do {
            let staging = try inbox.makeStagingDirectory()
            do {
                let copy = try OpenFile.createNew(staging.appendingPathComponent(ShareInbox.recordFileName).path)
                defer { copy.close() }
                try copy.write(payload)
                if inbox.durable { try copy.sync() }
                fresh = try inbox.publish(staging: staging)
            } catch {
                try? ShareInbox.removeTree(staging.path)
                throw error
            }
        } catch {
            deferLog(name, because: "\(problem) at byte \(log.cursor) cannot be published again under a fresh number now (\(error))")
            return .deferred
        }
        renumbered = max(renumbered ?? fresh, fresh)
        Diagnostics.warn("share inbox \(inbox.directory.path): the journal log \(journal.path)/\(name) holds at byte \(log.cursor) \(problem); "
                         + "that item is kept as item \(fresh)")
        try setCursor(name, to: log.cursor + header.recordSize)
        return .kept
    }

    /// Moves an entry that is not a log (or not a cursor) into `Quarantine/`, with a warning.
    func setAside(_ name: String, because problem: String) {
        let path = journal.path + "/" + name
        do {
            let aside = try inbox.moveToQuarantine(path, label: "journal-" + name)
            Diagnostics.warn("share inbox \(inbox.directory.path): \(path) was moved to \(aside): \(problem)")
        } catch {
            Diagnostics.warn("share inbox \(inbox.directory.path): \(path) is ignored: \(problem); it could not be moved aside either (\(error))")
        }
    }
}
