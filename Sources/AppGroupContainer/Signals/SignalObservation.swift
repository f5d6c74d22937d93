import Foundation
import AppGroupSystem

/// An observation of one name of a ``SignalTable``: its handler is called after
/// posts of the name, until ``cancel()`` or release.
package final class SignalObservation: Sendable {
    /// The name observed.
    package let name: String
    private let listener: SignalListener
    private let id: Int

    init(name: String, listener: SignalListener, id: Int) {
        (self.name, self.listener, self.id) = (name, listener, id)
    }

    /// Stops the calls; a call under way finishes. Safe to call more than once.
    package func cancel() { listener.remove(id) }

    deinit { cancel() }
}

extension SignalTable {
    /// Calls `handler` on a private thread of this process after posts of `name`
    /// by any process of the device (this one included): at least once after any
    /// number of posts made since the last call began, never for a post made
    /// before this returned. Calls are serial across the process's observations
    /// of this table, and run as the identity of the code that made the observation.
    package func observe(_ name: String, handler: @escaping @Sendable () -> Void) -> SignalObservation {
        SignalListener.of(self).add(name: name, handler: handler)
    }
}

/// The one thread per process and table that sleeps on the table's epoch and
/// calls the handlers of the names whose counters moved. It runs while the table
/// has observations in this process and ends with the last one.
final class SignalListener: @unchecked Sendable {
    // Every mutable field is guarded by `lock`.
    private struct Entry {
        let name: String
        var slot: Int
        var seen: UInt32
        let handler: @Sendable () -> Void
        let identity: CarriedIdentity
    }

    private let table: SignalTable
    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]
    private var nextID = 0
    private var running = false

    /// How long the thread sleeps before looking again with no post: a bound on
    /// any missed wake, and how soon a thread with no observation left ends.
    static let patience: Double = 2

    private init(table: SignalTable) { self.table = table }

    private static let listeners = Locked<[ObjectIdentifier: SignalListener]>([:])

    static func of(_ table: SignalTable) -> SignalListener {
        listeners.withLock { all in
            if let known = all[ObjectIdentifier(table)] { return known }
            let made = SignalListener(table: table)
            all[ObjectIdentifier(table)] = made
            return made
        }
    }

    func add(name: String, handler: @escaping @Sendable () -> Void) -> SignalObservation {
        let slot = table.slot(of: name)
        let identity = CarriedIdentity.here()
        let (id, start) = lock.withLock { () -> (Int, Bool) in
            let id = nextID
            nextID += 1
            // The baseline is read under the lock the thread compares under: a post
            // after this line is news.
            entries[id] = Entry(name: name, slot: slot, seen: table.count(slot), handler: handler, identity: identity)
            defer { running = true }
            return (id, !running)
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "signals \(table.path)"
            thread.start()
        }
        return SignalObservation(name: name, listener: self, id: id)
    }

    func remove(_ id: Int) {
        let last = lock.withLock { () -> Bool in
            guard entries.removeValue(forKey: id) != nil else { return false }
            return entries.isEmpty
        }
        // Wakes the thread (and, harmlessly, other processes' threads, which find
        // no counter moved) so that it ends now rather than at its next look.
        if last { SystemCalls.futexWakeAll(table.epoch) }
    }

    /// Calls one handler: a coordinated step (an exploring device's scheduler
    /// decides when it runs) and a traced delivery, the end of the arrow from the
    /// post that made the counter it saw.
    private func deliver(_ entry: Entry, seen: UInt32) {
        Exploration.step("signal delivery", entry.name)
        let args = Tracing.isOn ? [("table", table.path), ("count", "\(seen)")] : []
        let span = Tracing.begin(.signalDelivery)?.opened(entry.name, args, flowIn: table.traceFlow(slot: entry.slot, count: seen))
        entry.identity.run { entry.handler() }
        span?.end(entry.name, args, flowIn: table.traceFlow(slot: entry.slot, count: seen))
    }

    private func run() {
        var generation = table.mappingGeneration
        while true {
            // A table truncated, replaced or set aside under this process is mapped
            // again here; then every handler is called once, for what was lost.
            table.revalidate()
            let remapped = table.mappingGeneration != generation
            generation = table.mappingGeneration
            let epoch = SharedWord.load(table.epoch)
            var due: [(entry: Entry, seen: UInt32)] = []
            let stop = lock.withLock { () -> Bool in
                if entries.isEmpty {
                    running = false
                    return true
                }
                for (id, entry) in entries {
                    // The table mapped again may hold the name in another slot.
                    if remapped { entries[id]?.slot = table.slot(of: entry.name) }
                    let now = table.count(entries[id]?.slot ?? entry.slot)
                    if now != entry.seen || remapped {
                        entries[id]?.seen = now
                        due.append((entry, now))
                    }
                }
                return false
            }
            if stop { return }
            for (entry, seen) in due { deliver(entry, seen: seen) }
            if !due.isEmpty { continue } // posts made while handlers ran: look again first
            SharedWord.add(table.sleepers, 1)
            let woke = SystemCalls.futexWait(table.epoch, expected: epoch, seconds: Self.patience)
            SharedWord.subtract(table.sleepers, 1)
            if case .failed = woke { usleep(10_000) } // never a spin
        }
    }
}
