#if canImport(Glibc)
import Glibc
#endif
import AppGroupTesting
import Foundation
import Testing

/// A running AppGroupProbe (Sources/AppGroupProbe): a real child process whose
/// standard output and error are collected line by line as they arrive.
final class Probe: @unchecked Sendable {
    let arguments: [String]
    private let process = Process()
    private let state = NSCondition()
    private var out = ""
    private var err = ""
    private var openStreams = 2

    /// Starts the probe with `arguments`; `environment` is merged into this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        self.arguments = arguments
        process.executableURL = try Self.executable()
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        // The test runner's own identity, if any, must not leak into the child.
        for key in env.keys where key.hasPrefix("APP_GROUP_") { env[key] = nil }
        env.merge(environment) { _, new in new }
        process.environment = env
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        drain(stdout.fileHandleForReading, toError: false)
        drain(stderr.fileHandleForReading, toError: true)
    }

    private func drain(_ handle: FileHandle, toError: Bool) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                state.lock()
                if data.isEmpty {
                    openStreams -= 1
                } else if toError {
                    err += String(decoding: data, as: UTF8.self)
                } else {
                    out += String(decoding: data, as: UTF8.self)
                }
                state.broadcast()
                state.unlock()
                if data.isEmpty { return }
            }
        }
        thread.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// Everything written to standard output so far.
    var output: String { state.lock(); defer { state.unlock() }; return out }
    /// Everything written to standard error so far.
    var errorOutput: String { state.lock(); defer { state.unlock() }; return err }
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// Waits until a line of standard output satisfies `predicate`; nil after
    /// `seconds` or when the probe closed its output first.
    @discardableResult
    func waitForLine(timeout seconds: Double = 20, where predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        state.lock()
        defer { state.unlock() }
        while true {
            if let line = out.split(separator: "\n").map(String.init).first(where: predicate) { return line }
            if openStreams == 0 { return nil }
            if !state.wait(until: deadline) { return out.split(separator: "\n").map(String.init).first(where: predicate) }
        }
    }

    @discardableResult
    func waitForLine(_ line: String, timeout seconds: Double = 20) -> Bool {
        waitForLine(timeout: seconds, where: { $0 == line }) != nil
    }

    /// Waits for the probe to exit and its output to be read; its exit status, or
    /// nil (after SIGKILLing it) when it is still running after `seconds`.
    func waitForExit(timeout seconds: Double = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            if Date() >= deadline { kill(); return nil }
            usleep(2_000)
        }
        state.lock()
        while openStreams > 0 && state.wait(until: deadline) {}
        state.unlock()
        return process.terminationStatus
    }

    /// True when the probe was ended by a signal rather than by exiting.
    var wasSignalled: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// SIGKILL, if it still runs.
    func kill() {
        if process.isRunning { _ = sendSignal(process.processIdentifier, SIGKILL) }
    }

    /// Runs the probe to completion and expects exit status 0 within `seconds`.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout seconds: Double = 30,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> Probe {
        let probe = try Probe(arguments, environment: environment)
        let status = probe.waitForExit(timeout: seconds)
        #expect(status == 0, "AppGroupProbe \(arguments.joined(separator: " ")) ended with \(status.map(String.init) ?? "a timeout"); stderr: \(probe.errorOutput)",
                sourceLocation: sourceLocation)
        return probe
    }

    /// AppGroupProbe beside the test bundle (.build/<config>/AppGroupProbe).
    static func executable() throws -> URL {
        guard let url = SimulatedDevice.builtExecutable(named: "AppGroupProbe") else { throw ProbeMissing() }
        return url
    }

    struct ProbeMissing: Error, CustomStringConvertible {
        var description: String {
            "AppGroupProbe not found beside the test bundle; build it with `swift build`"
        }
    }
}

/// Kills every probe still running when `body` ends, however it ends: a failing
/// test must not leave a lock holder sleeping forever.
func withProbes<T>(_ body: (inout [Probe]) throws -> T) rethrows -> T {
    var probes: [Probe] = []
    defer { for probe in probes { probe.kill(); _ = probe.waitForExit(timeout: 5) } }
    return try body(&probes)
}

/// kill(2), under a name that the method ``Probe/kill()`` does not shadow.
func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 { kill(pid, signal) }
