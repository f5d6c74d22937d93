import AppGroupTesting
import Foundation
import Testing

/// AppGroupProbe (Tests/Probes/AppGroupProbe), the child process these tests spawn.
package enum Probe {
    /// Starts the probe with `arguments`; `environment` is merged into this
    /// process's, from which the test runner's own `APP_GROUP_*` identity is
    /// removed first (it must not leak into the child).
    package static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> LaunchedProcess {
        var merged = ProcessInfo.processInfo.environment
        for key in merged.keys where key.hasPrefix("APP_GROUP_") { merged[key] = nil }
        merged.merge(environment) { _, new in new }
        return try LaunchedProcess(built: "AppGroupProbe", arguments: arguments, environment: merged)
    }

    /// The built probe executable.
    package static func executable() throws -> URL {
        try SimulatedDevice.requireBuiltExecutable(named: "AppGroupProbe")
    }

    /// Runs the probe to completion and expects exit status 0 within `seconds`.
    @discardableResult
    package static func run(_ arguments: [String], environment: [String: String] = [:], timeout seconds: Double = 30,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> LaunchedProcess {
        let probe = try start(arguments, environment: environment)
        let end = probe.wait(timeout: seconds)
        #expect(end.succeeded, "AppGroupProbe \(arguments.joined(separator: " ")) ended with \(end.timedOut ? "a timeout" : String(end.status)); stderr: \(end.standardError)",
                sourceLocation: sourceLocation)
        return probe
    }
}

/// Kills every probe still running when `body` ends, however it ends: a failing
/// test must not leave a lock holder sleeping forever.
package func withProbes<T>(_ body: (inout [LaunchedProcess]) throws -> T) rethrows -> T {
    var probes: [LaunchedProcess] = []
    defer { for probe in probes { probe.kill(); probe.wait(timeout: 5) } }
    return try body(&probes)
}
