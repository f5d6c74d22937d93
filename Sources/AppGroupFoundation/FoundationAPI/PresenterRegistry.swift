#if !canImport(Darwin)
import Foundation
import AppGroupContainer

/// A value handed to another queue or thread that Swift cannot prove Sendable: a
/// presenter (Apple's protocol is not Sendable either) or an accessor. Each use
/// says why it is safe.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}

/// The process's registered file presenters (``NSFileCoordinator/filePresenters``)
/// and the observations that bring them the change signals of other processes
/// (``ChangeSignal``, posted on the device's ``SignalTable``).
///
/// Presenters are held strongly until removed, as Apple's coordinator holds them.
/// One observation serves every presenter of the same item (the same signal
/// file); it stops with the last of them.
final class PresenterRegistry: @unchecked Sendable {
    static let shared = PresenterRegistry()

    private struct Entry {
        let presenter: NSFilePresenter
        /// Who registered it: its messages run as that identity (an `IdentityScope`, or none).
        let identity: CarriedIdentity
        /// The signal file watched for it (nil: the item could not be watched).
        var signalPath: String?
        var directory: String?
        /// The presented item's standardized path when it was registered (or moved):
        /// what the registry tells other processes (``RemotePresenterListener``).
        var itemPath: String?
        /// The file it presents (device and inode), seen at registration, after each
        /// move and each change: a move record is followed only to this file
        /// (``ChangeSignal/verdict(on:presenting:presented:)``).
        var presented: ChangeSignal.ItemIdentity?
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var watchers: [String: (watcher: SignalObservation, users: Int)] = [:]
    /// The record ids last seen in each watched signal file.
    private var seen: [String: Set<String>] = [:]

    /// The identity a change record carries for `presenter`.
    static func identity(of presenter: NSFilePresenter?) -> UInt {
        presenter.map { UInt(bitPattern: ObjectIdentifier($0).hashValue) } ?? 0
    }

    var presenters: [NSFilePresenter] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map(\.presenter)
    }

    func add(_ presenter: NSFilePresenter) {
        let url = presenter.presentedItemURL // asked outside the lock: it is the presenter's code
        let identity = CarriedIdentity.here()
        let added = lock.withLock { () -> Bool in
            if entries.contains(where: { $0.presenter === presenter }) { return false }
            var entry = Entry(presenter: presenter, identity: identity)
            watch(&entry, url: url)
            entries.append(entry)
            return true
        }
        // Told to other processes once it is watched: a writer that finds it asks
        // it first, one that scanned just before tells it after (design note).
        if added { RemotePresenterListener.shared.republish() }
    }

    func remove(_ presenter: NSFilePresenter) {
        let removed = lock.withLock { () -> Bool in
            guard let index = entries.firstIndex(where: { $0.presenter === presenter }) else { return false }
            unwatch(entries.remove(at: index))
            return true
        }
        if removed { RemotePresenterListener.shared.republish() }
    }

    /// What other processes are told this process presents: (id, item path).
    var advertised: [(UInt, String)] {
        lock.withLock { entries.compactMap { entry in entry.itemPath.map { (Self.identity(of: entry.presenter), $0) } } }
    }

    /// The registered presenter with ``identity(of:)`` `id`.
    func presenter(withID id: UInt) -> NSFilePresenter? {
        lock.withLock { entries.first { Self.identity(of: $0.presenter) == id }?.presenter }
    }

    /// Watches again where `presenter` now says its item is (after a move).
    func refresh(_ presenter: NSFilePresenter) {
        let url = presenter.presentedItemURL
        let refreshed = lock.withLock { () -> Bool in
            guard let index = entries.firstIndex(where: { $0.presenter === presenter }) else { return false }
            let old = entries[index]
            var entry = Entry(presenter: presenter, identity: old.identity)
            watch(&entry, url: url) // before unwatching, so a shared directory watcher is kept
            unwatch(old)
            entries[index] = entry
            return true
        }
        if refreshed { RemotePresenterListener.shared.republish() }
    }

    /// The identity `presenter` was registered as; for one not registered, the caller's.
    func identity(for presenter: NSFilePresenter) -> CarriedIdentity {
        let registered = lock.withLock { entries.first { $0.presenter === presenter }?.identity }
        return registered ?? CarriedIdentity.here()
    }

    /// Registered presenters, other than `excluded`, whose item is at `path` now
    /// or is a directory above it (`isDirectoryAbove`).
    func presenters(of path: String, excluding excluded: NSFilePresenter?) -> [(NSFilePresenter, isDirectoryAbove: Bool)] {
        presenters.compactMap { presenter in
            guard presenter !== excluded, let presented = presenter.presentedItemURL.map(Self.standardPath) else { return nil }
            if presented == path { return (presenter, false) }
            return path.hasPrefix(presented == "/" ? "/" : presented + "/") ? (presenter, true) : nil
        }
    }

    static func standardPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    // MARK: Watching (called with the lock held)

    private func watch(_ entry: inout Entry, url: URL?) {
        guard let url, url.isFileURL else { return }
        let itemPath = Self.standardPath(url)
        entry.itemPath = itemPath
        entry.presented = ChangeSignal.identity(ofItemAt: itemPath)
        guard let signal = ChangeSignal.signalPath(forItemPath: itemPath),
              let slash = signal.lastIndex(of: "/") else { return }
        let directory = slash == signal.startIndex ? "/" : String(signal[..<slash])
        do {
            // The signal file first: it makes the coordination tree the watcher watches.
            try ChangeSignal.create(forItemPath: itemPath)
            if watchers[signal] == nil {
                let name = String(signal[signal.index(after: slash)...])
                let observation = try SignalTable.forItem(itemPath).observe(ChangeSignal.signalName(ofFile: signal)) { [weak self] in
                    self?.changed([name], in: directory)
                }
                watchers[signal] = (observation, 0)
            }
        } catch {
            Diagnostics.warn("NSFileCoordinator.addFilePresenter: changes made to \(AppGroupError.quote(itemPath)) by other processes will not be reported to this presenter: \(error)")
            if watchers[signal]?.users == 0 { watchers[signal]?.watcher.cancel(); watchers[signal] = nil }
            return
        }
        watchers[signal]?.users += 1
        // Records already there are history: only later ones are news.
        if seen[signal] == nil { seen[signal] = Set((ChangeSignal.records(at: signal) ?? []).map(\.id)) }
        entry.signalPath = signal
        entry.directory = directory
    }

    private func unwatch(_ entry: Entry) {
        guard entry.directory != nil, let signal = entry.signalPath else { return }
        if !entries.contains(where: { $0.signalPath == signal }) { seen[signal] = nil }
        guard let watched = watchers[signal] else { return }
        if watched.users <= 1 {
            watched.watcher.cancel()
            watchers[signal] = nil
        } else {
            watchers[signal]?.users -= 1
        }
    }

    // MARK: Delivering

    /// Signal files `names` in `directory` were posted: read them and tell their
    /// presenters of each record not seen before ("" in `names`: read them all).
    private func changed(_ names: Set<String>, in directory: String) {
        let prefix = directory == "/" ? "/" : directory + "/"
        let overflow = names.contains("")
        lock.lock()
        let signals = Set(entries.compactMap(\.signalPath)).filter { signal in
            signal.hasPrefix(prefix) && (overflow || names.contains(String(signal.dropFirst(prefix.count))))
        }
        lock.unlock()
        // Read without the registry's lock: a reader may wait for a writer's lock on
        // the signal file, and registering or coordinating must not wait with it.
        let read = signals.map { ($0, ChangeSignal.records(at: $0)) }
        var deliveries: [(String, NSFilePresenter, [ChangeSignal.Record]?)] = []
        lock.lock()
        for (signal, records) in read {
            let fresh: [ChangeSignal.Record]?
            if let records {
                let before = seen[signal] ?? []
                seen[signal] = Set(records.map(\.id))
                let new = records.filter { !before.contains($0.id) }
                // A full file of records all unseen: some may have been pushed out
                // unread, so report a change rather than miss one.
                let lost = records.count >= ChangeSignal.capacity && new.count == records.count && !before.isEmpty
                fresh = lost ? nil : new
            } else {
                fresh = nil // unreadable: assume a change
            }
            if fresh?.isEmpty == true { continue }
            for entry in entries where entry.signalPath == signal {
                deliveries.append((signal, entry.presenter, fresh))
            }
        }
        lock.unlock()
        for (signal, presenter, records) in deliveries { deliver(records, from: signal, to: presenter) }
    }

    /// Tells `presenter` of `records` read from `signal`. A record is a claim of
    /// whichever process wrote it (any target may write the file), so each is
    /// checked against the file system first (``ChangeSignal/verdict(on:presenting:presented:)``):
    /// what fails is dropped with a diagnostic naming the file.
    private func deliver(_ records: [ChangeSignal.Record]?, from signal: String, to presenter: NSFilePresenter) {
        guard let url = presenter.presentedItemURL else { return }
        let itemPath = Self.standardPath(url)
        let me = Self.identity(of: presenter)
        guard let records else {
            Self.send(to: presenter) { $0.presentedItemDidChange() }
            return
        }
        for record in records {
            // A write may have replaced the file (an atomic save): what is there now
            // is what a later move must carry.
            if record.kind == .change, record.path == itemPath { notePresentedFile(of: presenter, at: itemPath) }
            // A coordinator made with this presenter does not tell it of its own writes.
            if record.writer == ChangeSignal.writer && record.presenter == me { continue }
            switch ChangeSignal.verdict(on: record, presenting: itemPath, presented: presentedFile(of: presenter)) {
            case .itemChanged:
                Self.send(to: presenter) { $0.presentedItemDidChange() }
            case .subitemChanged(let path):
                let changed = URL(fileURLWithPath: path)
                Self.send(to: presenter) { $0.presentedSubitemDidChange(at: changed) }
            case .itemMoved(let newPath):
                let moved = URL(fileURLWithPath: newPath)
                Self.send(to: presenter) { presenter in
                    presenter.presentedItemDidMove(to: moved)
                    PresenterRegistry.shared.refresh(presenter)
                }
            case let .subitemMoved(from, to):
                let (changed, moved) = (URL(fileURLWithPath: from), URL(fileURLWithPath: to))
                Self.send(to: presenter) { $0.presentedSubitem(at: changed, didMoveTo: moved) }
            case .refused(let why):
                Diagnostics.warnOnce(about: "refused " + signal, "NSFilePresenter: a \(record.kind.rawValue) record in \(AppGroupError.quote(signal)) was not acted on for the presenter of \(AppGroupError.quote(itemPath)): \(why). Any process of the device may write that file; only what the file system confirms is told to presenters (further records refused in this file are not reported).")
            }
        }
    }

    /// The file `presenter` was last seen presenting.
    private func presentedFile(of presenter: NSFilePresenter) -> ChangeSignal.ItemIdentity? {
        lock.withLock { entries.first { $0.presenter === presenter }?.presented }
    }

    /// Looks again at what `presenter`'s item path holds (after a change).
    private func notePresentedFile(of presenter: NSFilePresenter, at itemPath: String) {
        guard let now = ChangeSignal.identity(ofItemAt: itemPath) else { return }
        lock.withLock {
            if let index = entries.firstIndex(where: { $0.presenter === presenter && $0.itemPath == itemPath }) { entries[index].presented = now }
        }
    }

    /// Runs `message` on the presenter's queue, as every presenter message runs.
    static func send(to presenter: NSFilePresenter, _ message: @escaping (NSFilePresenter) -> Void) {
        // The presenter and the message go to the presenter's own queue, which is
        // where Apple runs them too: the presenter is built to be called there.
        let handoff = Handoff(value: (presenter, message))
        let identity = PresenterRegistry.shared.identity(for: presenter)
        presenter.presentedItemOperationQueue.addOperation { identity.run { handoff.value.1(handoff.value.0) } }
    }
}
#endif
