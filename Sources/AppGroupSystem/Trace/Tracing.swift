import CAppGroupSys

/// The timeline trace of a process's coordinated operations, in Chrome's Trace
/// Event Format (it opens in Perfetto's UI and in chrome://tracing): locks waited
/// for and held, coordinated reads and writes and their presenters' messages, suite
/// reads and saves, inbox enqueues and deliveries, keychain calls, signals posted
/// and delivered, widget reloads, lifecycle events and terminations, launched
/// processes. A simulated device turns it on for its targets
/// (`SimulatedDevice(trace:)`, the `APPGROUP_TRACE` environment variable) and
/// merges their files into one.
///
/// A traced site is one call:
///
/// ```swift
/// let span = Tracing.begin(.suiteSave)          // nil when tracing is off
/// defer { span?.end(path, ["key": key], flowOut: Tracing.flowID("suite", path, generation)) }
/// ```
///
/// Off (the default), `begin` is one relaxed atomic load and a branch, and the
/// arguments of `end` are never evaluated. On, an event costs two clock reads and
/// one append under a lock (under a microsecond; BENCHMARKS.md), and the events
/// are written to `<APPGROUP_TRACE>/<pid>.json` when the process exits (or at
/// ``flush()``). Writing the trace never fails the traced operation: a trace that
/// cannot be written is one line on standard error.
package enum Tracing {
    /// The directory a process writes its trace file to; set, tracing is on from
    /// the process's start.
    package static let directoryEnvironmentKey = "APPGROUP_TRACE"
    /// The name of the process's track in the trace (a target's name).
    package static let nameEnvironmentKey = "APPGROUP_TRACE_NAME"

    /// Whether events are recorded: one relaxed atomic load.
    @inlinable @inline(__always)
    package static var isOn: Bool { agc_trace_enabled() != 0 }

    /// Turns recording on or off for the whole process (a test process tracing a
    /// device turns it on while the device lives).
    package static func set(on: Bool) { agc_trace_set(on ? 1 : 0) }

    /// Nanoseconds of CLOCK_MONOTONIC, the one clock of every process on the machine.
    @inline(__always)
    package static func now() -> UInt64 { agc_monotonic_ns() }

    /// The kinds of event, each the category of its events in the trace. A new kind
    /// of traced event is a new case here and one call at its site
    /// (ARCHITECTURE.md, "A new traced event").
    package enum Kind: String, Sendable, CaseIterable {
        /// Waiting for a coordination lock (args: mode, lock file).
        case lockWait = "lock.wait"
        /// Holding a coordination lock, from acquired to released.
        case lockHeld = "lock.held"
        /// A coordinated read (FileCoordinator or NSFileCoordinator), lock wait and accessor included.
        case coordinatedRead = "coordination.read"
        /// A coordinated write.
        case coordinatedWrite = "coordination.write"
        /// A message to a file presenter (save, relinquish, accommodate deletion).
        case presenterMessage = "coordination.presenter"
        /// A shared-defaults suite read that found a new version of the file.
        case suiteRead = "defaults.read"
        /// A shared-defaults suite save.
        case suiteSave = "defaults.save"
        /// A share-inbox enqueue (args: item number).
        case inboxEnqueue = "inbox.enqueue"
        /// A share-inbox delivery to the drain's handler.
        case inboxDelivery = "inbox.delivery"
        /// A SecItem call (args: status).
        case keychain = "keychain"
        /// A process launched by a simulated device, from start to exit (in the launcher's track).
        case process = "process"
        /// A post on the device's signal table (Darwin center, notify(3), presenters,
        /// WidgetKit; args: table, count): an arrow leaves it to each delivery it caused.
        case signalPost = "signal.post"
        /// A signal's delivery to an observer's handler in this process (args: count seen).
        case signalDelivery = "signal.delivery"
        /// A WidgetKit reload request recorded and posted (args: kind).
        case widgetReload = "widget.reload"
        /// A widget provider's run in the widget's process, from request to timeline.
        case widgetTimeline = "widget.timeline"
        /// A lifecycle request of the device (background, suspend, resume, terminate,
        /// jetsam), on the target's track, from the request to its effect.
        case lifecycle = "lifecycle"
        /// A lifecycle notification delivered inside a target (its observers' run).
        case lifecycleNotice = "lifecycle.notice"
        /// A background activity of a target, from begin to end or expiry.
        case backgroundTask = "lifecycle.task"
        /// A target's end as the device saw it (instant; args: reason, code, locks).
        case termination = "termination"
        /// A step the exploring scheduler granted (exploration runs only).
        case schedule = "schedule"
        /// Anything else worth a mark on the timeline (an instant event).
        case mark = "mark"
    }

    /// Another process's track, for events a process records about it (the device
    /// about its targets: a lifecycle request, a termination, which the target
    /// cannot record itself once stopped or killed).
    package struct Track: Sendable, Hashable {
        /// The process whose track holds the events.
        package let pid: Int32
        /// Its name (the name its own trace file gives it: the target's).
        package let name: String

        package init(pid: Int32, name: String) {
            self.pid = pid
            self.name = name
        }
    }

    /// An event begun and not yet ended; ``end(_:_:flowOut:flowIn:)`` records it.
    package struct Span: Sendable {
        package let kind: Kind
        package let start: UInt64
        package let thread: Int32
        /// Another process's track it goes on (nil: this thread's).
        package var track: Track?
        /// Its id among the open events of the trace buffer (0: not opened).
        var openID: UInt64 = 0

        package init(kind: Kind, start: UInt64, thread: Int32, track: Track? = nil) {
            (self.kind, self.start, self.thread, self.track) = (kind, start, thread, track)
        }

        /// The span with its details given before it ends, so that the event is
        /// written even if the process exits inside it: for spans that run the
        /// process's own code (an observer, an accessor, a handler), which may call
        /// `exit`. Its ``end(_:_:flowOut:flowIn:)`` gives the final details.
        package func opened(_ name: String, _ args: [(String, String)] = [], flowOut: UInt64? = nil, flowIn: UInt64? = nil) -> Span {
            var span = self
            span.openID = TraceBuffer.shared.open(TraceEvent(kind: kind, name: name, start: start, end: start, thread: thread,
                                                             args: args, flowOut: flowOut, flowIn: flowIn, track: track))
            return span
        }

        /// Records the event: `name` is its title on the timeline (the path, the
        /// key, the call), `args` what its details pane lists, `flowOut` the id of
        /// an arrow leaving it (a write, an enqueue) and `flowIn` one arriving (the
        /// read, the delivery it caused): see ``flowID(_:_:)``.
        package func end(_ name: String, _ args: [(String, String)] = [], flowOut: UInt64? = nil, flowIn: UInt64? = nil) {
            let event = TraceEvent(kind: kind, name: name, start: start, end: Tracing.now(), thread: thread,
                                   args: args, flowOut: flowOut, flowIn: flowIn, track: track)
            if openID != 0 { TraceBuffer.shared.close(openID, event) } else { TraceBuffer.shared.append(event) }
        }
    }

    /// Begins an event of `kind` now; nil when tracing is off (then nothing is
    /// evaluated at the `span?.end(...)` call).
    @inlinable @inline(__always)
    package static func begin(_ kind: Kind) -> Span? {
        isOn ? start(kind) : nil
    }

    /// Begins an event of `kind` now on another process's track (see ``Track``);
    /// nil when tracing is off.
    @inlinable @inline(__always)
    package static func begin(_ kind: Kind, on track: @autoclosure () -> Track) -> Span? {
        guard isOn else { return nil }
        var span = start(kind)
        span.track = track()
        return span
    }

    @usableFromInline
    static func start(_ kind: Kind) -> Span { Span(kind: kind, start: now(), thread: agc_thread_id()) }

    /// Records an instant event (a mark on the timeline) when tracing is on: on
    /// this thread's track, or on another process's (`track`).
    package static func mark(_ kind: Kind = .mark, _ name: String, _ args: [(String, String)] = [], on track: Track? = nil) {
        guard isOn else { return }
        let time = now()
        TraceBuffer.shared.append(TraceEvent(kind: kind, name: name, start: time, end: time, thread: agc_thread_id(),
                                             args: args, flowOut: nil, flowIn: nil, isInstant: true, track: track))
    }

    /// The id of the arrow between two events of different processes that name
    /// the same thing (FNV-1a of the parts, 53 bits so that JavaScript keeps it
    /// exact): the inbox and item number of an enqueue and its delivery, the
    /// suite file and inode of a save and the read that found it.
    package static func flowID(_ domain: String, _ parts: String...) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in domain.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for part in parts {
            hash = (hash ^ 0x1f) &* 0x100_0000_01b3
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return (hash & ((1 << 53) - 1)) | 1 // never 0
    }

    /// Writes this process's events so far to its trace file (when it has a
    /// directory: `APPGROUP_TRACE`). Never throws: a failure is one line on
    /// standard error.
    package static func flush() { TraceBuffer.shared.flush() }

    /// The events recorded so far (for a device merging the test process's own).
    package static func snapshot() -> [TraceEvent] { TraceBuffer.shared.snapshot() }

    /// Drops the events recorded so far.
    package static func discard() { TraceBuffer.shared.discard() }

    /// Sets the name of this process's track, when the environment did not.
    package static func nameProcess(_ name: String) { TraceBuffer.shared.processName = name }
}
