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

    /// The scheduler's side of the wire.
    package struct Wire: ~Copyable {
        package let directory: String
        private let fd: Int32

        /// Opens the requests FIFO in `directory`; nil when it cannot be made.
        package init?(directory: String) {
            let fd = agc_explore_serve(directory)
            guard fd >= 0 else { return nil }
            self.directory = directory
            self.fd = fd
        }

        deinit { SystemCalls.close(fd) }

        /// The bytes of requests that arrived within `milliseconds` (empty: none).
        package func read(waiting milliseconds: Int32) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = buffer.withUnsafeMutableBytes { agc_explore_read(fd, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 8192, milliseconds) }
            return count > 0 ? Array(buffer.prefix(Int(count))) : []
        }

        /// Grants process `pid` its next step; false when it is gone.
        package func grant(_ pid: Int32) -> Bool { agc_explore_grant(directory, pid) == 0 }
    }
}
