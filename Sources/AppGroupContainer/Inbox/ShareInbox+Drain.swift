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
    /// Once the handler returned, the item is never delivered again: its claim is
    /// renamed `<sequence>.delivered` before it is removed. An item that cannot be
    /// read, or that cannot be removed after delivery, is moved to `Quarantine/`
    /// with a warning (``Diagnostics``); one that cannot be claimed is skipped with
    /// a warning. None of them stops the items behind it.
    ///
    /// The drain streams: it keeps one item in memory at a time and never lists
    /// the inbox per item. Before delivering it puts back items of drains that
    /// died and removes staging directories older than ``staleStagingAge``.
    /// - Parameter maximumCount: stop after this many items; nil for all.
    @discardableResult
    public func drain(maximumCount: Int? = nil, _ handler: (ReceivedItem) throws -> Void) throws -> Int {
        try AtomicFile.requireContainedDirectory(directory) // at every drain, as enqueue does
        // A drain nested in this instance's own handler gets a session of its own:
        // sharing the outer one, it would take the outer's claims for leftovers.
        let session = DrainingSessions.begin(self.session)
        defer { DrainingSessions.end(session) }
        let sessionDirectory = claimsDirectory.appendingPathComponent(session, isDirectory: true)
        // The session's lock is taken before its directory exists and the directory
        // is gone before the lock is released, so a peer that gets the lock of a
        // session directory knows that session is dead.
        return try FileCoordinator().coordinate(writingItemAt: sessionDirectory) { _ in
            if try !Sys.makeDirectory(sessionDirectory.path) {
                // Left by an earlier drain of this instance whose put-back failed.
                _ = try recoverEntries(of: sessionDirectory, session: session)
                try Sys.makeDirectory(sessionDirectory.path)
            }
            defer {
                if (try? Sys.rmdir(sessionDirectory.path)) != nil, let lock = try? FileCoordinator.lockFileURL(for: sessionDirectory) {
                    _ = try? Sys.unlink(lock.path)
                }
            }
            try recoverAbandonedClaims()
            removeStaleStaging(olderThan: staleStagingAge)

            var lowest: UInt64?
            var highest: UInt64?
            try Sys.forEachEntry(in: itemsDirectory.path) { name in
                guard let n = InboxNames.sequenceNumber(name) else { return }
                lowest = min(lowest ?? n, n)
                highest = max(highest ?? n, n)
            }
            var tail = try lastPublishedSequence()
            if let highest, highest > tail {
                // An item above what the sequence file says (planted, or left by an
                // older version): raise the file first, so that no enqueue can be
                // given this number once the item is claimed.
                tail = try durableSequence(atLeast: highest, sync: false)
            }
            // Optional: past UInt64.max there is no next number (no wrap, no spin).
            var next: UInt64? = lowest ?? (tail == .max ? nil : tail + 1)
            var durableMark: UInt64 = 0
            var delivered = 0
            var unsynced = 0
            var misses = 0
            defer { if durable && unsynced > 0 { try? AtomicFile.syncDirectory(sessionDirectory.path) } }
            while delivered < (maximumCount ?? .max), let number = next {
                if number > tail {
                    // Caught up: look again for items published meanwhile.
                    tail = max(tail, try lastPublishedSequence())
                    if number > tail { break }
                }
                next = number == .max ? nil : number + 1
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
                    if misses >= Self.missesBeforeRescan, let floor = next {
                        misses = 0
                        next = try lowestPending(atLeast: floor) ?? (tail == .max ? nil : max(floor, tail + 1))
                    }
                    continue
                } catch let error as AppGroupError {
                    // An item this process cannot move (a directory it may not write...):
                    // it stays where it is, and the items behind it still flow.
                    Diagnostics.warn("share inbox \(directory.path): item \(number) cannot be claimed and was skipped: \(error)")
                    continue
                }
                misses = 0
                guard let item = try loadClaimed(claimed, number: number) else { continue }
                do {
                    try handler(item)
                } catch {
                    putBackOrWarn(claimed.path, number: number)
                    throw error
                }
                // Record the delivery before removing anything: from here on the item
                // is never delivered again, and a removal cut short by a kill is
                // finished by the next drain, not taken for a damaged item.
                if durable && number > durableMark { durableMark = try durableSequence(atLeast: number, sync: true) }
                let tombstone = sessionDirectory.appendingPathComponent(InboxNames.deliveredName(number)).path
                try Sys.rename(claimed.path, to: tombstone)
                delivered += 1
                discardDelivered(tombstone, number: number, session: session)
                unsynced += 1
                if durable && unsynced >= Self.removalSyncInterval {
                    try AtomicFile.syncDirectory(sessionDirectory.path)
                    unsynced = 0
                }
            }
            return delivered
        }
    }

    /// Removes a delivered item (`Claims/<session>/<n>.delivered`). One that cannot
    /// be removed (nested too deep, a subdirectory this user may not write...) is
    /// moved to `Quarantine/` with a warning; it is never delivered again either way.
    func discardDelivered(_ tombstone: String, number: UInt64, session: String) {
        do {
            try Self.removeTree(tombstone)
        } catch {
            do {
                let aside = try moveToQuarantine(tombstone, label: InboxNames.deliveredName(number) + "-" + session)
                Diagnostics.warn("share inbox \(directory.path): item \(number) was delivered but cannot be removed (\(error)); "
                                 + "it was moved to \(aside) and will not be delivered again: remove it by hand")
            } catch let second {
                Diagnostics.warn("share inbox \(directory.path): item \(number) was delivered but can be neither removed (\(error)) "
                                 + "nor quarantined (\(second)); it stays at \(tombstone) and will not be delivered again: remove it by hand")
            }
        }
    }

    /// Puts a claimed item back in `Items/` (see ``putBack(_:number:)``), warning
    /// when even that fails: the claim then stays, and the next drain of another
    /// session puts it back.
    func putBackOrWarn(_ claimed: String, number: UInt64) {
        do {
            try putBack(claimed, number: number)
        } catch {
            Diagnostics.warn("share inbox \(directory.path): item \(number) could not be put back from \(claimed): \(error); the next drain will")
        }
    }

    /// Moves a claimed item back to `Items/` under its number, never replacing
    /// another item there: if the number is taken (a number given out twice by an
    /// older version), the item is published again under a fresh number, with a
    /// warning. Returns the number it has now.
    @discardableResult
    func putBack(_ claimed: String, number: UInt64) throws -> UInt64 {
        do {
            try Self.moveWithoutReplacing(claimed, to: publishedPath(number))
            return number
        } catch AppGroupError.systemCall(_, _, let code) where Sys.isNameTaken(code) {
            let fresh = try publish(staging: URL(fileURLWithPath: claimed))
            if let st = try Sys.lstat(claimed), !Sys.isDirectory(st) { try Sys.unlink(claimed) } // a file was linked
            Diagnostics.warn("share inbox \(directory.path): item \(number) came back from a drain that ended, but another item has that number; "
                             + "both are kept, this one as item \(fresh)")
            return fresh
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
            // No sentinel: UInt64.max is a valid number.
            if let n = InboxNames.sequenceNumber(name), n >= floor, lowest.map({ n < $0 }) ?? true { lowest = n }
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
                // The record's size is within attachmentByteLimit (checked when
                // decoded), so an item the app could not read never reaches it.
                let path = claimed.appendingPathComponent(file.name).path
                guard let st = try Sys.lstat(path), Sys.isRegular(st), Int64(st.st_size) == file.size else {
                    throw AppGroupError.invalidInboxItem(field: path, problem: "the attachment is missing or not the \(file.size) bytes recorded")
                }
            }
            return record.received(sequenceNumber: number, directory: claimed)
        } catch let error as AppGroupError {
            let aside = try moveToQuarantine(claimed.path, label: InboxNames.itemName(number) + "-" + session)
            Diagnostics.warn("share inbox \(directory.path): item \(number) is unreadable and was moved to \(aside): \(error)")
            return nil
        }
    }
}

/// The sessions draining in this process now, so that a drain started inside a
/// handler of the same instance never reuses the running drain's session.
private enum DrainingSessions {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var active = Set<String>()

    /// `preferred` when it is not draining now, else a fresh session name.
    static func begin(_ preferred: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        var session = preferred
        while active.contains(session) {
            session = preferred + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        }
        active.insert(session)
        return session
    }

    static func end(_ session: String) {
        lock.lock()
        active.remove(session)
        lock.unlock()
    }
}
