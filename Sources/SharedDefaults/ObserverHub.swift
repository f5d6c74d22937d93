import AppGroupContainer
import Foundation
import PropertyLists

/// The observers of one ``SharedDefaults`` instance and the one directory watcher
/// they share.
///
/// The watcher (inotify on Linux; a thread asleep in poll(2), so no CPU while
/// idle) reports the names changed in the suite's Preferences directory. An
/// atomic save renames a new file over `<suite>.plist`, so every committed write
/// of any process shows up as that name. The hub then reads each observed key
/// (one lstat and, once per change, one parse) and calls the observers whose
/// value differs from the one they last received. Rapid writes may coalesce into
/// one call, but the event of the last rename always comes after it, so the last
/// value always arrives.
final class ObserverHub: @unchecked Sendable {
    private let directory: URL
    private let fileName: String

    private struct Entry {
        let key: String
        var last: Any?
        let read: @Sendable (String) -> Any?
        let handler: @Sendable (Any?) -> Void
        /// Who added the observer: its calls run as that identity, whichever
        /// observer's scope started the shared watcher.
        let identity: CarriedIdentity
    }

    // Held while delivering and while adding, so deliveries (and an observer's
    // first value) are serial and in order. Recursive: a handler may add observers.
    private let delivery = NSRecursiveLock()
    // Guards `entries`, `nextID` and `watcher`; never held while a handler runs,
    // so cancelling never waits for a handler. A handler may be blocked on the
    // suite's write lock while the thread holding it (in an update or transaction
    // closure) cancels an observation: waiting for `delivery` there would stall
    // both until the coordinator's timeout.
    private let state = NSLock()
    private var entries: [Int: Entry] = [:]
    private var nextID = 0
    private var watcher: DirectoryWatcher?

    init(directory: URL, fileName: String) {
        self.directory = directory
        self.fileName = fileName
    }

    /// Registers an observer; its baseline is the value now. When `initial`, the
    /// handler gets that value at once.
    func add(key: String, initial: Bool, read: @escaping @Sendable (String) -> Any?,
             handler: @escaping @Sendable (Any?) -> Void) throws -> Int {
        delivery.lock()
        defer { delivery.unlock() }
        if state.withLock({ watcher == nil }) {
            // Started before the baseline is read, so no change can slip between.
            let started = try DirectoryWatcher(directory: directory) { [weak self] names in
                self?.changed(names)
            }
            state.withLock { watcher = started }
        }
        let baseline = read(key)
        let identity = CarriedIdentity.here()
        let id = state.withLock { () -> Int in
            let id = nextID
            nextID += 1
            entries[id] = Entry(key: key, last: baseline, read: read, handler: handler, identity: identity)
            return id
        }
        if initial { handler(baseline) }
        return id
    }

    func remove(_ id: Int) {
        let stopped = state.withLock { () -> DirectoryWatcher? in
            entries[id] = nil
            guard entries.isEmpty else { return nil }
            defer { watcher = nil }
            return watcher
        }
        stopped?.cancel()
    }

    private func changed(_ names: Set<String>) {
        // "" is the watcher's "events were lost": check everything.
        guard names.contains(fileName) || names.contains("") else { return }
        delivery.lock()
        defer { delivery.unlock() }
        // By exact spelling: observers of "caf\u{E9}" and "cafe\u{301}" watch two keys.
        var valuesByKey: [ExactKey: Any?] = [:]
        for id in state.withLock({ entries.keys.sorted() }) {
            guard let entry = state.withLock({ entries[id] }) else { continue } // cancelled meanwhile
            let value: Any?
            if let cached = valuesByKey[ExactKey(entry.key)] {
                value = cached
            } else {
                value = entry.read(entry.key)
                valuesByKey[ExactKey(entry.key)] = .some(value)
            }
            if PropertyListValue.equal(entry.last, value) { continue }
            // Cancelled while the value was read: no call after cancel() returned.
            let current = state.withLock { () -> Bool in
                guard entries[id] != nil else { return false }
                entries[id]?.last = value
                return true
            }
            if current { entry.identity.run { entry.handler(value) } }
        }
    }

    deinit { state.withLock { watcher }?.cancel() }
}

/// An observation of one key of a ``SharedDefaults`` suite, as returned by
/// ``SharedDefaults/addObserver(forKey:initial:handler:)``. Keep it while you want
/// calls: ``cancel()`` or releasing it stops them, like `NSKeyValueObservation`.
public final class SharedDefaultsObservation: Sendable {
    /// The key observed.
    public let key: String
    private let hub: ObserverHub
    private let id: Int
    private let cancelled = Flag()

    init(key: String, hub: ObserverHub, id: Int) {
        self.key = key
        self.hub = hub
        self.id = id
    }

    /// Stops the calls; a call under way finishes. Safe to call more than once.
    public func cancel() {
        if cancelled.set() { hub.remove(id) }
    }

    deinit { cancel() }
}

/// A one-way flag: ``set()`` returns true only the first time.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() -> Bool {
        lock.withLock {
            defer { value = true }
            return !value
        }
    }
}
