import AppGroupContainer
import Foundation

/// Group commit of `Items/`: an enqueue's item is durable once an fsync of `Items/`
/// that STARTED after its rename returned has completed. Concurrent enqueues (in
/// any processes) share such fsyncs instead of each making one.
///
/// The record `.Items.synced` in the inbox directory holds one line, `<boot id>
/// <start> <device> <inode>`: the monotonic clock (one clock for every process of
/// a boot) read just before an fsync of the directory `<device>:<inode>` that
/// completed, written only after it completed, under the record's lock. An
/// enqueue reads the clock after its rename returned, takes the lock (waiting
/// while another enqueue's fsync runs), and skips its own fsync only when the
/// record names its boot, its `Items/` and a start later than its rename;
/// otherwise it fsyncs and records that. A record that is missing, damaged, of
/// another boot or of another directory only costs an fsync, never durability,
/// and the record itself needs no fsync: it means nothing after a reboot.
extension ShareInbox {
    /// The group-commit record's name in the inbox directory.
    static let commitRecordName = ".Items.synced"

    /// Makes durable the name `changed`, which got its name in `items` before
    /// `publishedAt` (a ``MonotonicClock`` reading taken after the rename returned).
    /// - Throws: ``AppGroupError/notDurable(path:operation:errno:)`` when the fsync
    ///   fails (the item is published: it must not be enqueued again).
    func commitItems(_ items: DirectoryHandle, inbox: DirectoryHandle, publishedAt: UInt64, changed: String) throws {
        guard let boot = Self.bootIdentifier,
              let directory = try? items.fileNumber(),
              let record = try? inbox.openOrCreateFile(Self.commitRecordName) else {
            return try items.sync(afterChanging: changed)
        }
        defer { record.close() } // also releases the lock
        guard (try? record.lockExclusively()) != nil else { return try items.sync(afterChanging: changed) }
        if let last = Self.parseCommit(record.readPrefix(Self.commitRecordLimit)), last.boot == boot,
           last.device == directory.device, last.inode == directory.inode, last.started > publishedAt {
            return // an fsync that began after the rename has completed
        }
        let started = MonotonicClock.now()
        try items.sync(afterChanging: changed)
        // Fixed widths: a rewrite in place always covers the previous line whole.
        let line = "\(boot) \(InboxNames.itemName(started)) \(InboxNames.itemName(directory.device)) \(InboxNames.itemName(directory.inode))\n"
        try? record.write(Data(line.utf8), at: 0) // unrecorded, the next enqueue fsyncs itself
    }

    /// How much of the record is read (its one line is about 120 bytes).
    static let commitRecordLimit = 256

    /// The record's fields; nil for anything else.
    static func parseCommit(_ data: Data) -> (boot: String, started: UInt64, device: UInt64, inode: UInt64)? {
        let line = data.prefix(while: { $0 != 0x0A })
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, let started = UInt64(parts[1]), let device = UInt64(parts[2]), let inode = UInt64(parts[3]) else { return nil }
        return (String(parts[0]), started, device, inode)
    }
}
