import Foundation

extension ShareInbox {
    /// Hands pending items to `handler`, one at a time, in enqueue order, removing
    /// each (with its attachments) only after the handler returns. Returns how many
    /// were delivered.
    ///
    /// Items published while the drain runs are delivered too. If the handler
    /// throws, the item stays in the inbox, the drain stops and the error is
    /// rethrown; the next drain starts with that item. If the process dies
    /// mid-handler, the next drain (in any process) delivers the item again.
    ///
    /// The drain streams: it keeps one item in memory at a time and never lists
    /// the inbox per item. Before delivering it puts back items of drains that
    /// died and removes staging directories older than ``staleStagingAge``.
    /// - Parameter maximumCount: stop after this many items; nil for all.
    @discardableResult
    public func drain(maximumCount: Int? = nil, _ handler: (ReceivedItem) throws -> Void) throws -> Int {
        let sessionDirectory = claimsDirectory.appendingPathComponent(session, isDirectory: true)
        // The session's lock is taken before its directory exists and the directory
        // is gone before the lock is released, so a peer that gets the lock of a
        // session directory knows that session is dead.
        return try FileCoordinator().coordinate(writingItemAt: sessionDirectory) { _ in
            try Sys.makeDirectory(sessionDirectory.path)
            defer {
                if (try? Sys.rmdir(sessionDirectory.path)) != nil, let lock = try? FileCoordinator.lockFileURL(for: sessionDirectory) {
                    _ = try? Sys.unlink(lock.path)
                }
            }
            try recoverAbandonedClaims()
            removeStaleStaging(olderThan: staleStagingAge)

            var lowest = UInt64.max
            var highest: UInt64 = 0
            try Sys.forEachEntry(in: itemsDirectory.path) { name in
                guard let n = InboxNames.sequenceNumber(name) else { return }
                lowest = min(lowest, n)
                highest = max(highest, n)
            }
            var tail = max(highest, try lastPublishedSequence())
            var next = lowest == .max ? tail &+ 1 : lowest
            var delivered = 0
            var unsynced = 0
            var misses = 0
            defer { if durable && unsynced > 0 { try? AtomicFile.syncDirectory(sessionDirectory.path) } }
            while delivered < (maximumCount ?? .max) {
                if next > tail {
                    // Caught up: look again for items published meanwhile.
                    let newTail = try lastPublishedSequence()
                    if newTail <= tail { break }
                    tail = newTail
                }
                let number = next
                next += 1
                let name = InboxNames.itemName(number)
                let claimed = sessionDirectory.appendingPathComponent(name, isDirectory: true)
                do {
                    // The claim: only one drainer's rename can succeed.
                    try Sys.rename(itemsDirectory.appendingPathComponent(name).path, to: claimed.path)
                } catch AppGroupError.systemCall(_, _, let code) where code == ENOENT {
                    // Delivered already, or claimed by another drainer. After a long run
                    // of such numbers (a recovered old item, a faster peer), skip ahead
                    // with one listing instead of trying each number.
                    misses += 1
                    if misses >= Self.missesBeforeRescan {
                        misses = 0
                        next = max(next, try lowestPending(atLeast: next) ?? tail &+ 1)
                    }
                    continue
                }
                misses = 0
                guard let item = try loadClaimed(claimed, number: number) else { continue }
                do {
                    try handler(item)
                } catch {
                    try? Sys.rename(claimed.path, to: itemsDirectory.appendingPathComponent(name).path)
                    throw error
                }
                try Self.removeTree(claimed.path)
                delivered += 1
                unsynced += 1
                if durable && unsynced >= Self.removalSyncInterval {
                    try AtomicFile.syncDirectory(sessionDirectory.path)
                    unsynced = 0
                }
            }
            return delivered
        }
    }

    /// Removals are fsynced in batches of this many items (and at the end of a
    /// drain): one fsync per item would cap a drain at the disk's fsync rate. A
    /// process crash loses no removal (the kernel keeps them); a power loss may
    /// bring back up to this many handled items, never lose one.
    static let removalSyncInterval = 64

    /// After this many numbers in a row that are gone, a drain lists `Items/` to
    /// find the next one, so its cost per item stays bounded.
    static let missesBeforeRescan = 256

    /// The lowest published number not below `floor` (one streaming pass).
    func lowestPending(atLeast floor: UInt64) throws -> UInt64? {
        var lowest: UInt64?
        try Sys.forEachEntry(in: itemsDirectory.path) { name in
            if let n = InboxNames.sequenceNumber(name), n >= floor, n < (lowest ?? .max) { lowest = n }
        }
        return lowest
    }

    /// Reads a claimed item's record and checks its attachments. An item that
    /// cannot be read is moved to `Quarantine/` with a warning (never dropped).
    func loadClaimed(_ claimed: URL, number: UInt64) throws -> ReceivedItem? {
        do {
            // A file is an item without attachments; a directory holds the record and the files.
            // Anything else (a symbolic link planted in Items/) is never followed.
            let st = try Sys.lstat(claimed.path)
            let isFile = st.map(Sys.isRegular) ?? false
            if let st, !isFile && !Sys.isDirectory(st) {
                throw AppGroupError.invalidInboxItem(field: claimed.path, problem: "a \(Sys.fileKind(st.st_mode)) stands where an item belongs; it was not followed")
            }
            let recordURL = isFile ? claimed : claimed.appendingPathComponent(Self.recordFileName, isDirectory: false)
            guard let data = try AtomicFile.read(recordURL, limit: ItemRecord.readLimit) else {
                throw AppGroupError.invalidInboxItem(field: recordURL.path, problem: "the record is missing")
            }
            let record = try ItemRecord.decode(data, path: recordURL.path)
            if isFile && !record.attachments.isEmpty {
                throw AppGroupError.invalidInboxItem(field: recordURL.path, problem: "a single-file item lists attachments")
            }
            for file in record.attachments {
                let path = claimed.appendingPathComponent(file.name).path
                guard let st = try Sys.lstat(path), Sys.isRegular(st), Int64(st.st_size) == file.size else {
                    throw AppGroupError.invalidInboxItem(field: path, problem: "the attachment is missing or not the \(file.size) bytes recorded")
                }
            }
            return record.received(sequenceNumber: number, directory: claimed)
        } catch let error as AppGroupError {
            let aside = quarantineDirectory.appendingPathComponent(InboxNames.itemName(number) + "-" + session, isDirectory: true)
            try Sys.rename(claimed.path, to: aside.path)
            Diagnostics.warn("share inbox \(directory.path): item \(number) is unreadable and was moved to \(aside.path): \(error)")
            return nil
        }
    }
}
