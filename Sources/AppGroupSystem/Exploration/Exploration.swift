import CAppGroupSys

/// The points where a target process of an exploring device asks the device's
/// scheduler for its turn: before each coordinated step (taking a coordination
/// lock, for a read or a write, by any coordinator; the rename that makes a save
/// visible; an inbox enqueue's publication; a signal's post, and its delivery to
/// the process's observers). Everything between two steps runs freely. Off (no
/// `APPGROUP_EXPLORE` in the environment), a step is one relaxed atomic load. See `SimulatedDevice.explore(schedules:strategy:seed:_:)`.
package enum Exploration {
    /// The exploration directory (the scheduler's FIFOs), set by an exploring device.
    package static let directoryEnvironmentKey = "APPGROUP_EXPLORE"
    /// How long a process waits for its turn before it runs freely (milliseconds).
    package static let deadlineEnvironmentKey = "APPGROUP_EXPLORE_DEADLINE_MS"

    /// Whether this process asks before each step.
    @inlinable @inline(__always)
    package static var isOn: Bool { agc_explore_enabled() != 0 }

    /// Waits for the scheduler's go-ahead for `step` on `item` (when exploring).
    @inlinable @inline(__always)
    package static func step(_ step: StaticString, _ item: @autoclosure () -> String) {
        if isOn { ask(step, item()) }
    }

    @usableFromInline
    static func ask(_ step: StaticString, _ item: String) {
        _ = step.withUTF8Buffer { bytes in
            String(decoding: bytes, as: UTF8.self).withCString { name in
                item.withCString { agc_explore_step(name, $0) }
            }
        }
    }

    /// The environment variable naming the scheduler's process: a target obeys
    /// only a listener the kernel says is that process.
    package static let schedulerEnvironmentKey = "APPGROUP_EXPLORE_SCHEDULER"

    /// The scheduler's side of the wire: a listening socket in the exploration
    /// directory and one connection per asking process (explore.c).
    package struct Wire: ~Copyable {
        package let directory: String
        private let listener: Int32

        /// What arrived on the wire.
        package enum Event: Equatable {
            /// A process connected: its connection and its pid, as the kernel saw it.
            case connected(Int32, pid: Int32)
            /// Bytes on a connection.
            case bytes(Int32, [UInt8])
            /// A connection ended (its process closed it or ended).
            case ended(Int32)
        }

        /// Listens in `directory`; nil (errno set) when the socket cannot be made.
        package init?(directory: String) {
            let fd = agc_local_listen(directory, "scheduler", 128)
            guard fd >= 0 else { return nil }
            self.directory = directory
            self.listener = fd
        }

        deinit { SystemCalls.close(listener) }

        /// What arrived within `milliseconds` on the listener and on `connections`.
        package func events(on connections: [Int32], waiting milliseconds: Int32) -> [Event] {
            var events: [Event] = []
            for fd in SystemCalls.pollReadable([listener] + connections, timeout: milliseconds) {
                if fd == listener {
                    // A burst of connections is taken a bounded number at a time: the others wait for the next look.
                    for _ in 0..<64 {
                        var pid: Int32 = 0
                        let connection = agc_local_accept(listener, &pid)
                        guard connection >= 0 else { break }
                        events.append(.connected(connection, pid: pid))
                    }
                    continue
                }
                var buffer = [UInt8](repeating: 0, count: 8192)
                let count = buffer.withUnsafeMutableBytes { agc_explore_receive(fd, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 8192) }
                let code = Errno.current
                if count > 0 {
                    events.append(.bytes(fd, Array(buffer.prefix(count))))
                } else if count == 0 || code != .EAGAIN {
                    events.append(.ended(fd))
                }
            }
            return events
        }

        /// Grants the process at the other end of `connection` its next step; false when it is gone.
        package func grant(on connection: Int32) -> Bool { agc_explore_grant(connection) == 0 }

        /// Closes a connection.
        package func close(_ connection: Int32) { SystemCalls.close(connection) }
    }
}
