import AppGroupContainer
import Foundation

/// A queue of pending shared items in an App Group container: share extensions
/// enqueue, the app drains. It replaces the common pattern of one `pendingURL` key
/// in shared defaults, where a second share before the app opens overwrites the first.
///
/// ```swift
/// // In the share extension:
/// let inbox = try ShareInbox(groupIdentifier: "group.ai.systenics.notes", resolver: resolver)
/// try inbox.enqueue(SharedItem(url: pageURL, title: "An article",
///                              attachments: [.init(fileURL: clipping)]))
///
/// // In the app, on launch and whenever `observe` fires:
/// try inbox.drain { item in
///     try notes.add(item.url, item.title, files: item.attachments)   // throw to keep the item
/// }
/// ```
///
/// Layout, under `<container>/Library/Application Support/<name>/` (name `Inbox` by default):
///
///     Journal/<pid>-<hex>.log    items without attachments: one writer's append-only
///                                log of numbered, checksummed records, locked by
///                                its writer while it keeps it
///     Journal/<pid>-<hex>.cursor how far that log was delivered
///     Journal/.consumer.lock     held by the one drain delivering the journal
///     Items/<sequence>/          a published item with attachments, a directory
///                                (names are 20 digits):
///         item.json              its record
///         <attachment>...        the copied files
///     Items/<sequence>           an item without attachments from an older version
///     Items/.tmp-<pid>-<random>  such an item being written by an older version
///     Staging/<pid>-<random>     items with attachments being written (never read)
///     Claims/<session>/          the item a running drain is handling, then
///                                <sequence>.delivered while it is being removed
///     Claims/.<session>.lock     held by that drain while it runs
///     Sequence                   the last sequence number given out
///     .Sequence.lock             the lock that orders enqueues
///     Quarantine/                items found unreadable, or delivered and not
///                                removable (kept, with a warning)
///
/// Guarantees, across threads and processes:
/// - An ``enqueue(_:)`` that returns has published a complete item (record and
///   attachments fsynced before the publishing link or rename); it is delivered exactly
///   once. An enqueue killed midway leaves only a hidden file in `Items/` or a
///   staging directory, which no drainer reads and which a later drain removes
///   once older than ``staleStagingAge``.
/// - **Enqueue order** is the order of sequence numbers. A number is given out, and
///   the item published under it, in one step under the inbox's lock, so numbers
///   increase in the order publications happen: if one enqueue returns before
///   another starts (in any processes), it comes first. Each drain hands its items
///   to the handler in increasing sequence order. A number is never given out
///   twice: the sequence file is advanced before the item is published, and a
///   put-back never replaces an item.
/// - An item is removed only after the handler returned. A drain claims an item by
///   renaming it into its own claim directory (a rename succeeds for one drainer
///   only, so two drainers never receive the same item). If the handler throws,
///   the item goes back and the drain stops; if the process dies, the next drain
///   finds the claim's lock free and puts the item back, in its place. Once the
///   handler returned, the claim is renamed `<sequence>.delivered` before anything
///   is removed: a delivered item is never delivered again, and one that cannot be
///   removed goes to `Quarantine/` while the items behind it flow.
/// - Attachments live in the item's directory and are removed with it.
///
/// Durability: with `durable` (the default) an enqueue without attachments costs
/// one fdatasync (its record appended to the journal, see <doc:TheShareInbox>);
/// with attachments, one fsync per file plus the record, the item directory and
/// `Items/`. A journal item is delivered when its log's cursor passes it, after
/// the handler returned; cursors are fsynced in batches as removals are.
/// Removals after delivery are fsynced in batches (`removalSyncInterval`): a
/// process crash loses none, a power loss may bring back a few handled items
/// (delivered again, never lost). The sequence file itself is
/// written without fsync and stamped with the kernel's boot id: after a reboot
/// the first enqueue rescans the inbox for the highest number before giving out
/// the next, so a lost counter update never reorders items. A drain fsyncs it
/// before it records a delivery above what it last synced (about once per
/// drain), so a power loss cannot bring back a number whose item is gone.
public struct ShareInbox: Sendable {
    /// The inbox directory.
    public let directory: URL
    /// Whether enqueues and removals are fsynced (see the type's documentation).
    public let durable: Bool
    /// The bundle identifier recorded as the sender of enqueued items.
    public let senderBundleIdentifier: String?
    /// When set, attachments must be files under one of these directories (the
    /// extension's sandbox); any other path is refused.
    public let readableDirectories: [URL]?
    /// Staging directories older than this (seconds) belong to enqueues that died
    /// and are removed by the next drain. One hour by default. (The hidden file of
    /// an item without attachments goes as soon as its writer is dead, whatever its
    /// age: see ``removeStaleStaging(olderThan:)``.)
    public var staleStagingAge: TimeInterval

    /// The resolver this inbox was opened with: attachments under its root but in
    /// the container of a group its identity lacks are refused.
    let resolver: ContainerResolver?
    /// The device root the inbox lies under (the resolver's, else the one its
    /// coordination tree marks above the directory; nil under none): every entry
    /// is reached from it without following a symbolic link.
    let root: ContainerRoot?
    /// This instance's drain session: drains through one instance take turns.
    let session: String
    /// This instance's journal log, kept open across enqueues (shared by copies).
    let journalWriter = JournalWriter()
    /// The `Sequence` file the journal's enqueues keep open.
    let heldSequence = HeldSequenceFile()
    /// Paths every enqueue uses, made once (a URL made per enqueue was a large share
    /// of its work).
    let paths: InboxPaths

    /// The default inbox name.
    public static let defaultName = "Inbox"
    /// The name of an item's record file.
    public static let recordFileName = "item.json"
    /// The largest attachment, in bytes (64 MiB), for both sides: ``enqueue(_:)``
    /// refuses a larger file, and a drain quarantines an item recording one, so an
    /// app that reads attachments with this limit never meets one it cannot read.
    public static let attachmentByteLimit: Int64 = 64 << 20

    /// Opens (creating on first use) the inbox `name` in the container of
    /// `groupIdentifier`, as the resolver's identity. Something planted where one of
    /// the inbox's own entries belongs (a file or a link at `Journal/`, `Items/`...,
    /// anything but a file at `Sequence`) is moved to `Quarantine/` with a warning,
    /// never followed, and the entry made again.
    /// - Throws: ``ShareInboxError/container(_:)`` carrying
    ///   `AppGroupError.notEntitled(group:bundleIdentifier:heldGroups:)` (nothing is
    ///   written then) or `AppGroupError.invalidGroupIdentifier(_:rule:)`,
    ///   ``ShareInboxError/invalidInboxItem(field:problem:)`` for a bad `name`,
    ///   file-system errors.
    public init(groupIdentifier: String, resolver: ContainerResolver, name: String = defaultName,
                durable: Bool = true, readableDirectories: [URL]? = nil) throws {
        try InboxNames.validateComponent(name, field: "inbox name")
        let container: URL
        do {
            container = try resolver.containerURL(ofGroup: groupIdentifier)
        } catch {
            throw ShareInboxError.container(error)
        }
        let directory = container.appendingPathComponent("Library/Application Support", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
        try self.init(directory: directory, durable: durable,
                      senderBundleIdentifier: resolver.entitlements.bundleIdentifier,
                      readableDirectories: readableDirectories, resolver: resolver)
    }

    /// Opens (creating on first use) an inbox at `directory`, with no entitlement
    /// check: for code that already resolved its container.
    public init(directory: URL, durable: Bool = true, senderBundleIdentifier: String? = nil,
                readableDirectories: [URL]? = nil) throws {
        try self.init(directory: directory, durable: durable, senderBundleIdentifier: senderBundleIdentifier,
                      readableDirectories: readableDirectories, resolver: nil)
    }

    init(directory: URL, durable: Bool, senderBundleIdentifier: String?, readableDirectories: [URL]?, resolver: ContainerResolver?) throws(ShareInboxError) {
        if directory.path.utf8.contains(0) {
            throw ShareInboxError.unsafePath(path: directory.path, problem: "the path contains a NUL byte")
        }
        self.directory = directory.standardizedFileURL
        self.paths = InboxPaths(directory: self.directory)
        self.durable = durable
        self.senderBundleIdentifier = senderBundleIdentifier
        self.readableDirectories = readableDirectories?.map { $0.standardizedFileURL.resolvingSymlinksInPath() }
        self.staleStagingAge = 3600
        self.resolver = resolver
        self.root = resolver?.containerRoot ?? ContainerRoot.marked(above: self.directory)
        self.session = "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let inbox = self
        try ShareInboxError.passingUp {
            try FileOperations.makeTrustedDirectory(inbox.directory)
            // Another user's directory on the way, or one others may write, would let
            // them plant or take items: refused (or, when ours, repaired to 0700).
            try TrustedDirectory.requireChain(to: inbox.directory.path, below: inbox.root)
            // Something planted where one of the inbox's entries belongs is set aside
            // here, not refused: a refusal would stop every enqueue and drain for good.
            try inbox.prepareLayout()
        }
    }

    /// Where published items are: the directory ``observe(_:)`` watches.
    public var itemsDirectory: URL { directory.appendingPathComponent("Items", isDirectory: true) }
    var stagingDirectory: URL { directory.appendingPathComponent("Staging", isDirectory: true) }
    var claimsDirectory: URL { directory.appendingPathComponent("Claims", isDirectory: true) }
    var quarantineDirectory: URL { directory.appendingPathComponent("Quarantine", isDirectory: true) }
    var sequenceFile: URL { paths.sequenceFile }

    /// The coordinator of drain sessions in `Claims/`: a session's lock must be
    /// found by listing Claims/ (recovery), so it stays beside the session
    /// directory, not in the coordination tree. Every process uses this one.
    var claimsCoordinator: FileCoordinator { FileCoordinator(lockFiles: .besideItems(below: root)) }

    /// How many items are published and not yet claimed or delivered: those in
    /// `Items/` (one streaming pass over the directory) and the journal's records
    /// past their logs' cursors (their headers read, no lock taken).
    public func pendingCount() throws -> Int {
        try ShareInboxError.passingUp { try countPending() }
    }

    /// ``pendingCount()``'s work.
    func countPending() throws -> Int {
        try AtomicFile.requireContainedDirectory(directory, below: root)
        var count = 0
        try FileOperations.forEachEntry(in: itemsDirectory.path) { name in
            if InboxNames.sequenceNumber(name) != nil { count += 1 }
        }
        try JournalScan.forEachRecord(of: self, fromStart: false) { _, _, _ in count += 1 }
        return count
    }
}
