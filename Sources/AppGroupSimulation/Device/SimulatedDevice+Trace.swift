import AppGroupContainer
import AppGroupSystem
import Foundation

extension SimulatedDevice {
    /// Whether a device records a timeline trace of its targets, and where the trace goes.
    ///
    /// A traced device records every coordinated operation of every process it
    /// launches (each target's process writes its events to the device's `trace/`
    /// directory when it exits) and of the test process itself on the device's
    /// files, and merges them into one file in Chrome's Trace Event Format: open it
    /// in Perfetto's UI (ui.perfetto.dev) or chrome://tracing. See <doc:SeeingATestsStory>.
    public enum TraceOption: Sendable, Hashable {
        /// No trace (the default, unless `APPGROUP_TRACE_DEVICES` is set).
        case off
        /// Record, and write `trace.json` into the device's directory when the
        /// device is kept (``KeepPolicy``: a failed test's device with `on-failure`).
        case whenKept
        /// Record, and write the merged trace to this file when the device ends
        /// (and `trace.json` beside a kept device too).
        case file(URL)

        /// `APPGROUP_TRACE_DEVICES`: set to `1` (or any non-empty value but `0`),
        /// every device made without a `trace:` argument is ``whenKept``, so that
        /// `APPGROUP_KEEP_DEVICE=on-failure` keeps a failed test's trace beside its device.
        public static let environmentKey = "APPGROUP_TRACE_DEVICES"

        static var fromEnvironment: TraceOption {
            let value = ProcessInfo.processInfo.environment[environmentKey] ?? ""
            return value.isEmpty || value == "0" ? .off : .whenKept
        }
    }

    /// Makes a fresh device that records a trace of its targets (see ``TraceOption``).
    /// - Throws: as ``init(name:keepPolicy:)``; `AppGroupError` when the trace's
    ///   directory cannot be made.
    public convenience init(name: String = "SimulatedDevice", keepPolicy: KeepPolicy? = nil, trace: TraceOption) throws {
        try self.init(name: name, keepPolicy: keepPolicy)
        try tracing.start(trace, device: self)
    }

    /// What this device does with its trace.
    public var traceOption: TraceOption { tracing.option }

    /// The directory the device's processes write their trace files to (nil when not traced).
    public var traceDirectory: URL? { tracing.option == .off ? nil : directory.appendingPathComponent("trace", isDirectory: true) }

    /// Merges what the device's processes have written so far (a process writes
    /// its file when it exits) and the test process's own events on this device's
    /// files into one trace, and writes it to `url` (by default `trace.json` in
    /// the device's directory).
    /// - Returns: the file written.
    /// - Throws: ``SimulationError/traceNotRecorded(_:)`` on a device made without a trace;
    ///   Foundation's error when the file cannot be written.
    @discardableResult
    public func writeTrace(to url: URL? = nil) throws -> URL {
        try SimulationError.passingUp {
            guard let traceDirectory else { throw TraceNotRecorded(deviceDirectory: directory) }
            let destination = url ?? directory.appendingPathComponent("trace.json")
            try DeviceTracing.merged(traceDirectory: traceDirectory, device: directory).write(to: destination, options: .atomic)
            return destination
        }
    }

    /// Called as the device ends: writes the trace where its option says, never
    /// failing the removal (a trace that cannot be written is one line on standard error).
    func finishTrace(kept: Bool) {
        guard tracing.option != .off else { return }
        var destinations: [URL] = []
        if kept { destinations.append(directory.appendingPathComponent("trace.json")) }
        if case .file(let url) = tracing.option { destinations.append(url) }
        for destination in destinations {
            do {
                try writeTrace(to: destination)
                if kept, destination.lastPathComponent == "trace.json", destination.deletingLastPathComponent() == directory {
                    FileHandle.standardError.write(Data("AppGroupTesting: the device's trace is \(destination.path) (open it in ui.perfetto.dev or chrome://tracing; summary: swift run appgroup trace \(destination.path))\n".utf8))
                }
            } catch {
                FileHandle.standardError.write(Data("AppGroupTesting: could not write the device's trace to \(destination.path): \(error)\n".utf8))
            }
        }
        tracing.stop()
    }

    /// A new trace directory of one sandboxed launch, inside ``traceDirectory``:
    /// the only one that target may write, so no target can replace or forge
    /// another process's file. Nil when the device records no trace.
    func launchTraceDirectory(for target: SimulatedTarget) throws -> URL? {
        guard let traceDirectory else { return nil }
        let directory = traceDirectory.appendingPathComponent("\(target.bundleIdentifier)-\(tracing.nextLaunch())", isDirectory: true)
        try RaceFreeDirectory.make(directory, intermediates: false, mode: 0o700)
        return directory
    }

    /// The trace variables of a spawned target's environment.
    func traceEnvironment(name: String?) -> [String: String] {
        // (And an exploring device's scheduler: SimulatedDevice+Explore.swift.)
        let exploring = explorationEnvironment()
        guard let traceDirectory else { return exploring }
        var variables = exploring
        variables[Tracing.directoryEnvironmentKey] = traceDirectory.path
        if let name { variables[Tracing.nameEnvironmentKey] = name }
        return variables
    }
}

/// ``SimulatedDevice/writeTrace(to:)`` on a device made without a trace.
public struct TraceNotRecorded: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device's directory.
    public let deviceDirectory: URL
    public var description: String {
        "the device at \(deviceDirectory.path) records no trace: make it with SimulatedDevice(trace: .whenKept) or .file(url), or set \(SimulatedDevice.TraceOption.environmentKey)=1"
    }
}

/// A device's trace state, and the process-wide count of traced devices: the test
/// process records its own events while any traced device lives.
final class DeviceTracing: Sendable {
    private let state = Locked(SimulatedDevice.TraceOption.off)
    private static let live = Locked(0)
    private let launches = Locked(0)

    /// A number no other launch of this device has had.
    func nextLaunch() -> Int { launches.withLock { $0 += 1; return $0 } }

    var option: SimulatedDevice.TraceOption { state.withLock { $0 } }

    func start(_ option: SimulatedDevice.TraceOption, device: SimulatedDevice) throws {
        guard option != .off else { return }
        let directory = device.directory.appendingPathComponent("trace", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let wasOff = state.withLock { current -> Bool in
            defer { current = option }
            return current == .off
        }
        guard wasOff else { return }
        Self.live.withLock { count in
            count += 1
            Tracing.set(on: true)
        }
    }

    func stop() {
        let wasOn = state.withLock { current -> Bool in
            defer { current = .off }
            return current != .off
        }
        guard wasOn else { return }
        Self.live.withLock { count in
            count -= 1
            // The last traced device gone: stop recording, unless the environment
            // asked for this process's own trace file.
            if count == 0, ProcessInfo.processInfo.environment[Tracing.directoryEnvironmentKey]?.isEmpty ?? true {
                Tracing.set(on: false)
                Tracing.discard()
            }
        }
    }

    /// One trace of every file in `traceDirectory` and the test process's own events on `device`'s files.
    static func merged(traceDirectory: URL, device: URL) throws -> Data {
        let mine = Tracing.snapshot().filter { $0.concerns(device.path) }
        let name = "test process (\(ProcessInfo.processInfo.processName))"
        var events = try TraceMerge.events(ofDocument: TraceJSON.document(TraceJSON.process(mine, pid: getpid(), name: name)))
        var remaining = TraceMerge.mergeLimit
        for path in traceFiles(in: traceDirectory) {
            do {
                // Written by the device's targets: no link is followed, no FIFO waited on, sizes bounded.
                events += try TraceMerge.events(ofFile: path, remaining: &remaining)
            } catch {
                FileHandle.standardError.write(Data("AppGroupTesting: left out of the device's trace: \(error)\n".utf8))
            }
        }
        return TraceMerge.merge(events)
    }

    /// The `.json` files of `traceDirectory` (processes the device did not sandbox)
    /// and of each launch's directory in it, one level down, never through a link.
    private static func traceFiles(in traceDirectory: URL) -> [String] {
        func entries(_ directory: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().map { directory + "/" + $0 }
        }
        var files: [String] = []
        for entry in entries(traceDirectory.path) {
            let kind = (try? FileManager.default.attributesOfItem(atPath: entry))?[.type] as? FileAttributeType
            if kind == .typeDirectory {
                files += entries(entry).filter { $0.hasSuffix(".json") }
            } else if entry.hasSuffix(".json") {
                files.append(entry)
            }
        }
        return files
    }
}
