import AppGroupContainer
import Foundation

/// One drain's walk through the sequence, in named steps: which number comes
/// next, claiming it, recording its delivery. It holds the drain's counts, so
/// ``ShareInbox/drain(maximumCount:_:)`` reads as the loop it is.
struct DrainRun {
    let inbox: ShareInbox
    /// `Claims/<session>/`: where claims and tombstones live while this drain runs.
    let sessionDirectory: URL
    /// Items handed to the handler and recorded as delivered.
    private(set) var delivered = 0
    /// The next number to try; nil past UInt64.max (there is no next: no wrap, no spin).
    private var next: UInt64?
    /// The highest number known to be given out: past it, the drain looks again
    /// for items published meanwhile, and stops when there are none.
    private var tail: UInt64
    /// The highest number the sequence file was fsynced at by this drain.
    private var durableMark: UInt64 = 0
    /// Removals not yet fsynced (see ``ShareInbox/removalSyncInterval``).
    private var unsynced = 0
    /// Numbers tried in a row that were gone (see ``ShareInbox/missesBeforeRescan``).
    private var misses = 0
    /// Removals of delivered items, in flight beside this thread.
    private let removals = InboxRemovals()
    /// `Items/` and the session directory as paths, built once: a URL per item costs
    /// more than the drain's own work.
    private let itemsPath: String
    private let sessionPath: String
    /// The journal, when this drain holds its consumer lock (nil: another drain
    /// delivers the journal, this one only `Items/`).
    private let journal: JournalReader?

    /// Starts at the lowest published item, after raising the sequence file to the
    /// highest one when an item stands above what the file says (planted, or left
    /// by an older version): then no enqueue can be given that number once the
    /// item is claimed.
    init(inbox: ShareInbox, sessionDirectory: URL) throws {
        self.inbox = inbox
        self.sessionDirectory = sessionDirectory
        itemsPath = inbox.itemsDirectory.path
        sessionPath = sessionDirectory.path
        journal = try JournalReader.open(inbox)
        let base = try inbox.lastPublishedSequence()
        var (published, implausible) = try inbox.publishedRange(believableAfter: base)
        if implausible {
            try inbox.republishImplausibleItems(after: base, claimingInto: sessionDirectory)
            published = try inbox.publishedRange(believableAfter: base).range
        }
        var tail = try Self.refresh(inbox, journal, floor: 0)
        if let published, published.upperBound > tail {
            tail = try inbox.durableSequence(atLeast: published.upperBound, sync: false)
        }
        self.tail = tail
        let lowest = [published?.lowerBound, journal?.lowestHead(atLeast: 0)].compactMap { $0 }.min()
        next = lowest ?? Self.after(tail)
    }

    /// The last number given out, read under the sequence file's shared lock
    /// together with how far each journal log goes: every record numbered up to
    /// it is then whole in its log (or its number is a gap); the logs' heads are
    /// read after the lock. A journal record numbered above what the file says
    /// (planted) raises the file, as an item in `Items/` does.
    private static func refresh(_ inbox: ShareInbox, _ journal: JournalReader?, floor: UInt64) throws -> UInt64 {
        let last = try inbox.lastPublishedSequence { try journal?.measureLogs() }
        // After the lock: reading heads needs no enqueue to wait, and a number given
        // out twice is published again under a fresh one (which takes the lock). A
        // record numbered too far above `last` to be believed is too.
        let ceiling = last > .max - ShareInbox.plausibleAdvance ? .max : last + ShareInbox.plausibleAdvance
        guard let highest = try journal?.loadHeads(floor: floor, ceiling: ceiling), highest > last else { return last }
        return try inbox.durableSequence(atLeast: highest, sync: false)
    }

    private static func after(_ number: UInt64) -> UInt64? { number == .max ? nil : number + 1 }

    /// The next number to claim, or nil when the drain has caught up with what is
    /// published (looking once more at the sequence file first).
    mutating func nextNumber() throws -> UInt64? {
        guard let number = next else { return nil }
        if number > tail {
            tail = max(tail, try Self.refresh(inbox, journal, floor: number))
            if number > tail { return nil }
        }
        next = Self.after(number)
        return number
    }

    /// Claims item `number` by renaming it into the session directory (only one
    /// drainer's rename can succeed) and returns where it is now; nil when the
    /// number is gone (delivered already, or claimed by a peer) or cannot be moved
    /// (skipped with a warning: the items behind it still flow).
    mutating func claim(_ number: UInt64) throws -> URL? {
        let name = InboxNames.itemName(number)
        let claimed = URL(fileURLWithPath: sessionPath + "/" + name, isDirectory: true)
        do {
            try FileOperations.rename(itemsPath + "/" + name, to: sessionPath + "/" + name)
        } catch where FileOperations.isMissing(error) {
            try noteMiss()
            return nil
        } catch {
            Diagnostics.warn("share inbox \(inbox.directory.path): item \(number) cannot be claimed and was skipped: \(error)")
            return nil
        }
        misses = 0
        return claimed
    }

    /// After a long run of numbers that are gone (a recovered old item, a faster
    /// peer), skips ahead with one listing instead of trying each number. The
    /// journal is measured first (under the sequence lock, as at every refresh): a
    /// record appended since the last look is numbered above `tail`, and skipping
    /// past it unmeasured would pass its number, taking it for one given out twice.
    /// Nor does the skip go past `tail` + 1, where the next refresh looks again.
    private mutating func noteMiss() throws {
        misses += 1
        guard misses >= ShareInbox.missesBeforeRescan, let floor = next else { return }
        misses = 0
        tail = max(tail, try Self.refresh(inbox, journal, floor: floor))
        let afterTail = tail == .max ? nil : max(floor, tail + 1)
        next = [try inbox.lowestPending(atLeast: floor), journal?.lowestHead(atLeast: floor), afterTail].compactMap { $0 }.min()
    }

    /// Item `number` from the journal when it is there (nil: look in `Items/`).
    func journalEntry(_ number: UInt64) throws -> JournalReader.Entry? {
        try journal?.entry(number)
    }

    /// Before item `number` is handed to the handler: the sequence file made
    /// durable past it, so that once its delivery is recorded a power loss cannot
    /// bring back a number whose item is gone. Done before the handler, not after:
    /// what fails here (no descriptor...) then fails before the item was handed,
    /// never after, when the item would come again.
    mutating func prepareDelivery(of number: UInt64) throws {
        if inbox.durable && number > durableMark {
            durableMark = try inbox.durableSequence(atLeast: number, sync: true)
        }
    }

    /// Records that the handler returned for journal item `number`: its log's
    /// cursor moved past it (a pwrite on the cursor opened before the handler),
    /// before anything else. Cursors are fsynced in batches with the removals.
    mutating func recordJournalDelivery(of number: UInt64, log: String) throws {
        try journal?.delivered(number, log: log)
        delivered += 1
        misses = 0
        unsynced += 1
        if inbox.durable && unsynced >= ShareInbox.removalSyncInterval { try syncBatch() }
    }

    private mutating func syncBatch() throws {
        removals.wait()
        try FileOperations.syncDirectory(sessionPath)
        try journal?.syncCursors()
        unsynced = 0
    }

    /// Records that the handler returned for item `number`, then removes it. The
    /// delivery is recorded before anything is removed (the claim renamed
    /// `<n>.delivered`, the sequence file fsynced past it by ``prepareDelivery(of:)``):
    /// from here on the item is never delivered again, and a removal cut short by a
    /// kill is finished by the next drain, not taken for a damaged item.
    mutating func recordDelivery(of claimed: URL, number: UInt64) throws {
        let tombstone = sessionPath + "/" + InboxNames.deliveredName(number)
        try FileOperations.rename(claimed.path, to: tombstone)
        delivered += 1
        removals.remove(tombstone, number: number, session: inbox.session, of: inbox)
        unsynced += 1
        if inbox.durable && unsynced >= ShareInbox.removalSyncInterval { try syncBatch() }
    }

    /// Waits for the removals in flight and fsyncs those not yet synced (at the end
    /// of a drain, however it ends).
    mutating func syncRemovals() {
        removals.wait()
        if inbox.durable && unsynced > 0 { try? FileOperations.syncDirectory(sessionPath) }
        unsynced = 0
        do {
            try journal?.finish()
        } catch {
            Diagnostics.warn("share inbox \(inbox.directory.path): the journal's delivery records could not all be synced or tidied: \(error); "
                             + "after a power loss a few delivered items may come again")
        }
    }
}
