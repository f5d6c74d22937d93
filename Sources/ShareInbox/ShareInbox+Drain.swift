import AppGroupContainer
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
    /// with a warning (`Diagnostics`); one that cannot be claimed is skipped with
    /// a warning. None of them stops the items behind it.
    ///
    /// The drain streams: it keeps one item in memory at a time and never lists
    /// the inbox per item. Before delivering it puts back items of drains that
    /// died and removes staging directories older than ``staleStagingAge``.
    /// - Parameters:
    ///   - maximumCount: stop after this many items; nil for all.
    ///   - handler: receives each item in order; the item is delivered once it
    ///     returns, and stays in the inbox when it throws.
    @discardableResult
    public func drain(maximumCount: Int? = nil, _ handler: (ReceivedItem) throws -> Void) throws -> Int {
        do {
            return try deliver(maximumCount: maximumCount) { item in
                do { try handler(item) } catch { throw HandlerFailure(error: error) }
            }
        } catch let failure as HandlerFailure {
            throw failure.error
        } catch {
            throw ShareInboxError.from(error)
        }
    }

    /// ``drain(maximumCount:_:)``'s work; `handler`'s errors arrive wrapped as
    /// ``HandlerFailure``, so that the inbox's own errors can be told from them.
    func deliver(maximumCount: Int?, _ handler: (ReceivedItem) throws -> Void) throws -> Int {
        try AtomicFile.requireContainedDirectory(directory, below: root) // at every drain, as enqueue does
        // Something planted where Items/, Claims/, Journal/... belongs since the
        // inbox was opened: set aside now, before any of them is used by path.
        try prepareLayout()
        // A drain nested in this instance's own handler gets a session of its own:
        // sharing the outer one, it would take the outer's claims for leftovers.
        let session = DrainingSessions.begin(self.session)
        defer { DrainingSessions.end(session) }
        let sessionDirectory = claimsDirectory.appendingPathComponent(session, isDirectory: true)
        // The session's lock is taken before its directory exists and the directory
        // is gone before the lock is released, so a peer that gets the lock of a
        // session directory knows that session is dead.
        return try claimsCoordinator.coordinate(writingItemAt: sessionDirectory) { _ in
            try openSession(sessionDirectory)
            defer { closeSession(sessionDirectory) }
            _ = try recoverClaims()
            removeStaleStaging(olderThan: staleStagingAge)

            var run = try DrainRun(inbox: self, sessionDirectory: sessionDirectory)
            defer { run.syncRemovals() }
            while run.delivered < (maximumCount ?? .max), let number = try run.nextNumber() {
                var entry = try run.journalEntry(number)
                // A damaged record was set aside; the log's next record may carry the number.
                while case .damaged? = entry { entry = try run.journalEntry(number) }
                if let entry {
                    // Skipped: its log is left for a later drain.
                    guard case let .item(item, log) = entry else { continue }
                    // Before the handler: what recording the delivery needs (the
                    // sequence file durable past it, the cursor open) is in place.
                    try run.prepareDelivery(of: number)
                    // A throwing handler leaves the cursor where it is: the item comes first next time.
                    try traceDelivery(number) { try handler(item) }
                    try run.recordJournalDelivery(of: number, log: log)
                    continue
                }
                guard let claimed = try run.claim(number), let item = try loadClaimed(claimed, number: number) else { continue }
                do {
                    try run.prepareDelivery(of: number)
                    try traceDelivery(number) { try handler(item) }
                } catch {
                    putBackOrWarn(claimed.path, number: number)
                    throw error
                }
                try run.recordDelivery(of: claimed, number: number)
            }
            return run.delivered
        }
    }

    /// Runs the handler on item `number`, as the trace's delivery event (the end
    /// of the arrow from its enqueue).
    private func traceDelivery(_ number: UInt64, _ deliver: () throws -> Void) throws {
        let span = Tracing.begin(.inboxDelivery)?.opened(directory.path, [("item", "\(number)"), ("outcome", "delivering")], flowIn: traceFlow(number))
        var outcome = "delivered"
        defer { span?.end(directory.path, [("item", "\(number)"), ("outcome", outcome)], flowIn: traceFlow(number)) }
        do { try deliver() } catch { outcome = "handler threw"; throw error }
    }

    /// Makes this instance's session directory (its lock is held), first putting
    /// back what an earlier drain of this instance left there.
    private func openSession(_ sessionDirectory: URL) throws {
        if try !FileOperations.makeDirectory(sessionDirectory.path) {
            // Left by an earlier drain of this instance whose put-back failed.
            _ = try recoverEntries(of: sessionDirectory, session: session)
            try FileOperations.makeDirectory(sessionDirectory.path)
        }
    }

    /// Removes the session directory and, once it is gone, the session's lock file
    /// (the exception <doc:TheShareInbox> explains). A directory that
    /// cannot go (a put-back failed) keeps its lock file for the next drain.
    private func closeSession(_ sessionDirectory: URL) {
        if (try? FileOperations.removeDirectory(sessionDirectory.path)) != nil {
            _ = try? claimsCoordinator.removeLockFile(for: sessionDirectory)
        }
    }

    /// Removes a delivered item (`Claims/<session>/<n>.delivered`). One that cannot
    /// be removed (nested too deep, a subdirectory this user may not write...) is
    /// moved to `Quarantine/` with a warning; it is never delivered again either way.
    func discardDelivered(_ tombstone: String, number: UInt64, session: String) {
        do {
            try Self.removeTree(tombstone)
        } catch where InboxFailure.isTransient(error) {
            // Out of descriptors, an I/O error...: it stays, delivered, and the next
            // drain of this or another session finishes the removal.
            Diagnostics.warn("share inbox \(directory.path): item \(number) was delivered; removing it failed for now (\(error)); "
                             + "it stays at \(tombstone), is never delivered again, and a later drain removes it")
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
            try FileOperations.moveWithoutReplacing(claimed, to: publishedPath(number))
            return number
        } catch {
            if FileOperations.isNameTaken(error) {
                let fresh = try publish(staging: URL(fileURLWithPath: claimed))
                if let status = try FileOperations.status(claimed), !status.isDirectory { try FileOperations.removeFile(claimed) } // a file was linked
                Diagnostics.warn("share inbox \(directory.path): item \(number) came back from a drain that ended, but another item has that number; "
                                 + "both are kept, this one as item \(fresh)")
                return fresh
            } else {
                throw error
            }
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

    /// The lowest and highest published numbers believable with the counter at
    /// `base` (one streaming pass; nil when none), and whether any item stands
    /// above them, too far to be believed (see ``isPlausible(_:after:)``).
    func publishedRange(believableAfter base: UInt64) throws -> (range: ClosedRange<UInt64>?, implausible: Bool) {
        var lowest: UInt64?
        var highest: UInt64?
        var implausible = false
        try FileOperations.forEachEntry(in: itemsDirectory.path) { name in
            guard let n = InboxNames.sequenceNumber(name) else { return }
            guard Self.isPlausible(n, after: base) else { implausible = true; return }
            lowest = min(lowest ?? n, n)
            highest = max(highest ?? n, n)
        }
        guard let lowest, let highest else { return (nil, implausible) }
        return (lowest...highest, implausible)
    }

    /// Publishes again, under fresh numbers, the items of `Items/` numbered too far
    /// above the counter (`base`) to be believed (planted near UInt64.max: believed,
    /// they would end the numbering for every writer), each with a warning; at most
    /// ``staleTemporariesPerPass`` per drain. Each is claimed into `session` first,
    /// so a drain killed midway leaves it for the next (put back, then published).
    func republishImplausibleItems(after base: UInt64, claimingInto session: URL) throws {
        var names: [String] = []
        try FileOperations.forEachEntry(in: itemsDirectory.path) { name in
            if names.count < Self.staleTemporariesPerPass, let n = InboxNames.sequenceNumber(name), !Self.isPlausible(n, after: base) { names.append(name) }
        }
        for name in names {
            let claimed = session.appendingPathComponent(name).path
            do {
                try FileOperations.rename(itemsDirectory.path + "/" + name, to: claimed)
            } catch {
                continue // claimed by a peer meanwhile, or not movable: it stays
            }
            do {
                let fresh = try publish(staging: URL(fileURLWithPath: claimed))
                if let status = try FileOperations.status(claimed), !status.isDirectory { try FileOperations.removeFile(claimed) } // a file was linked
                Diagnostics.warn("share inbox \(directory.path): an item was named \(name), far above the \(base) the Sequence file says "
                                 + "(planted, or a counter set by hand); that number is not believed: the item is kept as item \(fresh)")
            } catch {
                putBackOrWarn(claimed, number: InboxNames.sequenceNumber(name) ?? 0)
                throw error
            }
        }
    }

    /// The lowest published number not below `floor` (one streaming pass).
    func lowestPending(atLeast floor: UInt64) throws -> UInt64? {
        var lowest: UInt64?
        try FileOperations.forEachEntry(in: itemsDirectory.path) { name in
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
            let status = try FileOperations.status(claimed.path)
            let isFile = status?.isRegular ?? false
            if let status, !isFile && !status.isDirectory {
                throw ShareInboxError.invalidInboxItem(field: claimed.path, problem: "a \(status.kind) stands where an item belongs; it was not followed")
            }
            let recordURL = isFile ? claimed : claimed.appendingPathComponent(Self.recordFileName, isDirectory: false)
            guard let data = try AtomicFile.read(recordURL, below: root, limit: ItemRecord.readLimit) else {
                throw ShareInboxError.invalidInboxItem(field: recordURL.path, problem: "the record is missing")
            }
            let record = try ItemRecord.decode(data, path: recordURL.path)
            if isFile && !record.attachments.isEmpty {
                throw ShareInboxError.invalidInboxItem(field: recordURL.path, problem: "a single-file item lists attachments")
            }
            for file in record.attachments {
                // The record's size is within attachmentByteLimit (checked when
                // decoded), so an item the app could not read never reaches it.
                let path = claimed.appendingPathComponent(file.name).path
                guard let status = try FileOperations.status(path), status.isRegular, status.size == file.size else {
                    throw ShareInboxError.invalidInboxItem(field: path, problem: "the attachment is missing or not the \(file.size) bytes recorded")
                }
            }
            return record.received(sequenceNumber: number, directory: claimed)
        } catch {
            if InboxFailure.isTransient(error) {
                // Out of descriptors or memory, an I/O error: nothing is known of the item.
                putBackOrWarn(claimed.path, number: number)
                Diagnostics.warn("share inbox \(directory.path): item \(number) cannot be read now (\(error)); it stays in Items/ "
                                 + "and a later drain delivers it")
                return nil
            } else if error is ShareInboxError || error is AppGroupError {
                let aside = try moveToQuarantine(claimed.path, label: InboxNames.itemName(number) + "-" + session)
                Diagnostics.warn("share inbox \(directory.path): item \(number) is unreadable and was moved to \(aside): \(error)")
                return nil
            } else {
                throw error
            }
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
