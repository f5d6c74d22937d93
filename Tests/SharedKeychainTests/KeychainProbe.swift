import AppGroupTesting
import Foundation

/// A finished probe process, its standard output trimmed (the probe prints one
/// short answer).
struct ProbeResult {
    let status: Int32
    let stdout: String
    let stderr: String

    init(_ outcome: ProcessOutcome) {
        status = outcome.status
        stdout = outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        stderr = outcome.standardError
    }
}

/// KeychainProbe (Tests/Probes/KeychainProbe), the child process these tests spawn.
enum Probe {
    /// Starts the probe with `arguments` and exactly `environment`.
    static func start(_ arguments: [String], environment: [String: String]) throws -> LaunchedProcess {
        try LaunchedProcess(built: "KeychainProbe", arguments: arguments, environment: environment)
    }

    /// Runs the probe to its end (killed after 120 s, a liveness deadline).
    static func run(_ arguments: [String], _ environment: [String: String]) throws -> ProbeResult {
        ProbeResult(try start(arguments, environment: environment).wait(timeout: 120))
    }
}
