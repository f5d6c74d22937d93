import AppGroupSystem
import Foundation

/// Enforces a device's memory limits on its targets' processes, as jetsam does:
/// by a cgroup v2 per process where one can be made (the kernel kills at the
/// limit), else by a sampling watchdog (one thread per device, started with the
/// first limited target), which reads each footprint (``ProcessMemory``) every
/// ``LifecycleSettings/memorySamplingInterval`` and kills a process over its limit.
final class MemoryLimits: @unchecked Sendable {
    // @unchecked: `watched`, `running` and `sampling` are guarded by `lock`.
    private let lock = NSLock()
    private var watched: [(connection: LifecycleConnection, limit: Int)] = []
    private var running = false
    /// How the watchdog samples (said with its first kill).
    private var sampling: (path: Path, interval: TimeInterval)?

    /// Which path a device uses, said once per test process when the watchdog first kills.
    enum Path: Equatable {
        case cgroup(String)
        case watchdog(reason: String)
    }

    static func path(for enforcement: MemoryEnforcement) -> Path? {
        switch enforcement {
        case .off: return nil
        case .samplingWatchdog: return .watchdog(reason: "LifecycleSettings.memoryEnforcement is .samplingWatchdog")
        case .automatic:
            if ProcessInfo.processInfo.environment["APPGROUP_MEMORY_WATCHDOG"] == "1" {
                return .watchdog(reason: "APPGROUP_MEMORY_WATCHDOG=1")
            }
            switch MemoryCgroup.parent {
            case .success(let parent): return .cgroup(parent)
            case .failure(let why): return .watchdog(reason: "no cgroup v2 memory controller to use: \(why)")
            }
        }
    }

    private static let said = Locked(Set<String>())

    /// Says once per process and path how memory limits are enforced (with the first kill by sampling).
    static func sayOnce(_ path: Path, interval: TimeInterval) {
        let text: String
        switch path {
        case .cgroup(let parent): text = "AppGroupTesting: memory limits of targets are enforced by cgroup v2 (memory.max) under \(parent)\n"
        case .watchdog(let reason):
            text = "AppGroupTesting: memory limits of targets are enforced by a sampling watchdog every \(Int(interval * 1000)) ms (\(reason))\n"
        }
        let first = said.withLock { $0.insert(text).inserted }
        if first { FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// Starts enforcing `limit` on `connection`'s process.
    func watch(_ connection: LifecycleConnection, limit: Int, settings: LifecycleSettings) {
        guard let path = Self.path(for: settings.memoryEnforcement) else { return }
        if case .cgroup = path, let group = try? MemoryCgroup.make(for: connection.pid, limit: limit) {
            connection.condition.lock()
            connection.cgroup = (group, limit)
            connection.condition.unlock()
            return
        }
        let used: Path
        if case .cgroup = path { used = .watchdog(reason: "the cgroup could not be made") } else { used = path }
        lock.lock()
        sampling = (used, settings.memorySamplingInterval)
        watched.append((connection, limit))
        let start = !running
        running = true
        lock.unlock()
        if start {
            let thread = Thread { [self] in
                ThreadName.setCurrent("memory watchdog")
                sample(interval: settings.memorySamplingInterval)
            }
            thread.start()
        }
    }

    /// The watchdog's loop: ends when nothing is left to watch.
    private func sample(interval: TimeInterval) {
        while true {
            lock.lock()
            watched.removeAll { $0.connection.currentState == .ended || $0.connection.streamEndedNow }
            let now = watched
            if now.isEmpty { running = false }
            lock.unlock()
            if now.isEmpty { return }
            for (connection, limit) in now {
                guard let footprint = ProcessMemory.footprint(of: connection.pid), footprint > limit else { continue }
                // Said only when it changes what a test gets: a kill by sampling, which
                // a spike shorter than the interval escapes.
                lock.lock()
                let how = sampling
                lock.unlock()
                if let how { Self.sayOnce(how.path, interval: how.interval) }
                connection.kill(reason: .memoryLimit(limit: limit, footprint: footprint), locks: [])
            }
            usleep(UInt32(max(interval, 0.001) * 1_000_000))
        }
    }
}
