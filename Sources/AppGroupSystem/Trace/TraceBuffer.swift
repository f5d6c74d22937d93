#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The process's events, in memory until the process exits (or ``flush()``), then
/// written as one Chrome trace file, `<APPGROUP_TRACE>/<pid>.json`.
final class TraceBuffer: @unchecked Sendable {
    // @unchecked: every stored property is a `let` or guarded by `lock`.
    static let shared = TraceBuffer()

    private let lock = NSLock()
    private var events: [TraceEvent] = []
    /// Events begun with their details and not ended yet (``Tracing/Span/opened(_:_:flowOut:flowIn:)``),
    /// by id: written as unfinished if the file is written before they end.
    private var open: [UInt64: TraceEvent] = [:]
    private var lastOpen: UInt64 = 0
    private var name: String?
    private var exitHookInstalled = false
    private var warned = false
    /// Where the file goes; nil in a process that only keeps its events (a test
    /// process tracing devices).
    let directory: String?

    private init() {
        let environment = ProcessInfo.processInfo.environment
        directory = environment[Tracing.directoryEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 }
        name = environment[Tracing.nameEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 }
        events.reserveCapacity(1024)
    }

    var processName: String? {
        get { lock.withLock { name } }
        set { lock.withLock { name = newValue } }
    }

    func append(_ event: TraceEvent) {
        lock.lock()
        events.append(event)
        let install = directory != nil && !exitHookInstalled
        if install { exitHookInstalled = true }
        lock.unlock()
        // The file is written when the process exits normally (exit, or main
        // returning); a process killed by a signal leaves what its last flush wrote.
        if install { atexit { TraceBuffer.shared.flush() } }
    }

    /// Keeps `event` (its end not known yet) until ``close(_:_:)``; 0 when this
    /// process writes no trace file (then nothing is kept).
    func open(_ event: TraceEvent) -> UInt64 {
        guard directory != nil else { return 0 }
        lock.lock()
        lastOpen += 1
        let id = lastOpen
        open[id] = event
        let install = !exitHookInstalled
        exitHookInstalled = true
        lock.unlock()
        if install { atexit { TraceBuffer.shared.flush() } }
        return id
    }

    /// Records the event opened as `id`, now ended.
    func close(_ id: UInt64, _ event: TraceEvent) {
        lock.withLock {
            open.removeValue(forKey: id)
            events.append(event)
        }
    }

    func snapshot() -> [TraceEvent] { lock.withLock { events } }

    func discard() { lock.withLock { events.removeAll(keepingCapacity: true) } }

    /// Writes every event so far to this process's file (replacing what an earlier
    /// flush wrote there). A failure is one line on standard error, once.
    func flush() {
        guard let directory else { return }
        // An event still open is written as ending now: the process may be exiting
        // inside it (an observer that calls exit), and a later flush replaces the file.
        let (events, name) = lock.withLock { () -> ([TraceEvent], String?) in
            let now = Tracing.now()
            let unfinished = open.sorted { $0.key < $1.key }.map { _, event -> TraceEvent in
                var ending = event
                ending.end = max(now, event.start)
                ending.args.append(("unfinished", "the trace was written before it ended (the process exited inside it, or was about to be stopped)"))
                return ending
            }
            return (self.events + unfinished, self.name)
        }
        let pid = getpid()
        let processName = name ?? ProcessInfo.processInfo.processName
        let data = TraceJSON.document(TraceJSON.process(events, pid: pid, name: processName))
        let path = directory + "/\(pid).json"
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            let first = lock.withLock { () -> Bool in
                defer { warned = true }
                return !warned
            }
            if first {
                let line = "AppGroupTrace: could not write the trace file \(path): \(error.localizedDescription); the traced operations are unaffected\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
    }
}
