import AppGroupTesting
import Foundation
import Testing

/// SignalProbe (Tests/Probes/SignalProbe), the child process of the signal tests.
package enum SignalProbe {
    /// Starts it with `arguments`, the test runner's `APP_GROUP_*` removed and
    /// `environment` merged in.
    package static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> LaunchedProcess {
        var merged = ProcessInfo.processInfo.environment
        for key in merged.keys where key.hasPrefix("APP_GROUP_") { merged[key] = nil }
        merged.merge(environment) { _, new in new }
        return try LaunchedProcess(built: "SignalProbe", arguments: arguments, environment: merged)
    }

    /// Runs it to its end and expects success.
    @discardableResult
    package static func run(_ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> LaunchedProcess {
        let probe = try start(arguments, environment: environment)
        let end = probe.wait(timeout: 60)
        #expect(end.succeeded, "SignalProbe \(arguments.joined(separator: " ")): \(probe.standardError)", sourceLocation: sourceLocation)
        return probe
    }

    /// The "delivered"/"woke"/"token" lines a probe printed so far.
    package static func deliveries(_ probe: LaunchedProcess, prefix: String = "delivered") -> Int {
        probe.outputLines.filter { $0.hasPrefix(prefix + " ") }.count
    }
}

/// Kills every probe still running when `body` ends.
package func withSignalProbes<T>(_ body: (inout [LaunchedProcess]) throws -> T) rethrows -> T {
    var probes: [LaunchedProcess] = []
    defer {
        for probe in probes {
            probe.kill(SIGCONT)
            probe.kill()
            probe.wait(timeout: 5)
        }
    }
    return try body(&probes)
}
