/// One recorded event: a complete event (`"ph": "X"`) from `start` to `end`, or an
/// instant, with the arrows leaving and arriving at it.
package struct TraceEvent: Sendable {
    package var kind: Tracing.Kind
    package var name: String
    /// CLOCK_MONOTONIC nanoseconds.
    package var start: UInt64
    package var end: UInt64
    /// The kernel's id of the thread it began on.
    package var thread: Int32
    package var args: [(String, String)]
    package var flowOut: UInt64?
    package var flowIn: UInt64?
    package var isInstant = false
    /// The other process's track it belongs on (nil: the recording thread's).
    package var track: Tracing.Track?

    package init(kind: Tracing.Kind, name: String, start: UInt64, end: UInt64, thread: Int32, args: [(String, String)],
                 flowOut: UInt64?, flowIn: UInt64?, isInstant: Bool = false, track: Tracing.Track? = nil) {
        self.kind = kind
        self.name = name
        self.start = start
        self.end = max(end, start)
        self.thread = thread
        self.args = args
        self.flowOut = flowOut
        self.flowIn = flowIn
        self.isInstant = isInstant
        self.track = track
    }

    /// True when an argument (a path, say) lies in `directory`: how a device picks
    /// its own events out of a test process that runs several devices.
    package func concerns(_ directory: String) -> Bool {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return name.hasPrefix(prefix) || name == directory || args.contains { $0.1.hasPrefix(prefix) || $0.1 == directory }
    }
}
