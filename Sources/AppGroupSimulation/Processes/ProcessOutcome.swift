import Foundation

/// How a spawned process ended and what it printed.
///
/// Its ``description`` names the command, the target it ran as (bundle id, team,
/// App Groups, keychain access groups), the device, how it ended and the end of
/// its standard error: interpolate it in an expectation's message, or call
/// ``requireSuccess()`` to throw it.
public struct ProcessOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The exit status, or the signal number when ``signal`` is set.
    public let status: Int32
    /// The signal that killed it, if one did.
    public let signal: Int32?
    /// True when it was killed (SIGKILL) at the timeout of the wait.
    public let timedOut: Bool
    /// Everything it wrote to standard output.
    public let standardOutput: String
    /// Everything it wrote to standard error.
    public let standardError: String
    /// Who ran, as what, where (outcomes are made by the internal memberwise initializer).
    let label: ProcessLabel
    /// Group suites the target saved with Foundation's own `UserDefaults` (FoundationSuiteCheck).
    var foundationSuiteNotes: [String] = []

    /// Exited by itself with status 0.
    public var succeeded: Bool { signal == nil && status == 0 && !timedOut }
    /// Standard output split into lines at LF (a CR before it is part of the ending), empty lines left out.
    public var outputLines: [String] { OutputLines.all(standardOutput).filter { !$0.isEmpty } }

    /// The target it ran as; nil when it ran with no identity or an explicit environment.
    public var target: SimulatedTarget? { label.target }
    /// The directory of the device it ran on (``SimulatedDevice/directory``), if any.
    public var deviceDirectory: URL? { label.deviceDirectory }

    /// How it ended, in words: `exited with status 3`, `was killed by signal 9`...
    public var ending: String {
        if timedOut { return "was killed (SIGKILL) at the end of its timeout" }
        if let signal { return "was killed by signal \(signal)" }
        return "exited with status \(status)"
    }

    /// The command (quoted as a shell would), the target it ran as with its whole
    /// identity, the device, how it ended, then the last lines of its standard error:
    ///
    ///     `NotesShareHost --url x` as NotesShare (share extension ai.systenics.notes.share,
    ///     team A1B2C3D4E5, App Groups [group.ai.systenics.notes], keychain access groups
    ///     [A1B2C3D4E5.ai.systenics.notes.shared]) on the simulated device at
    ///     /tmp/SimulatedDevice-x1Y2z3: exited with status 3; its standard error: ...
    public var description: String {
        "\(label): \(ending)" + ProcessFailure.tail(of: standardError, named: "standard error")
            + (succeeded ? "" : ProcessFailure.sandboxNote(label))
            + foundationSuiteNotes.map { "\n" + $0 }.joined()
    }

    /// This outcome when the process succeeded.
    /// - Throws: ``SimulationError/processFailed(_:)`` naming the process, its target and identity,
    ///   the device and how it ended. The device it ran on is marked failed
    ///   (``SimulatedDevice/hasFailed``), so `APPGROUP_KEEP_DEVICE=on-failure` keeps it.
    @discardableResult
    public func requireSuccess() throws -> ProcessOutcome {
        guard succeeded else {
            let failure = ProcessFailure(reason: .ended(self), label: label, standardError: standardError)
            LiveDevices.recordFailure(failure.description, onDeviceAt: label.deviceDirectory)
            throw SimulationError.processFailed(failure)
        }
        return self
    }
}

/// A child process did not do what a test required of it: it ended unsuccessfully
/// (``ProcessOutcome/requireSuccess()``) or did not print what was awaited in time
/// (``LaunchedProcess/requireLine(_:timeout:)``). Its description names the
/// command, the target it ran as with its identity, and the device.
public struct ProcessFailure: CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// It ended without success (non-zero status, a signal, or killed at its timeout).
        case ended(ProcessOutcome)
        /// It did not print the awaited output within `timeout` seconds (or closed its output first).
        case outputNotSeen(expected: String, timeout: TimeInterval, outputSoFar: String)
    }

    /// What went wrong.
    public let reason: Reason
    let label: ProcessLabel
    /// Its standard error up to the failure.
    public let standardError: String

    /// The target it ran as; nil when it ran with no identity or an explicit environment.
    public var target: SimulatedTarget? { label.target }
    /// The directory of the device it ran on, if any.
    public var deviceDirectory: URL? { label.deviceDirectory }

    public var description: String {
        switch reason {
        case .ended(let outcome):
            return "\(label) failed: it \(outcome.ending)" + Self.tail(of: standardError, named: "standard error") + Self.sandboxNote(label)
        case .outputNotSeen(let expected, let timeout, let output):
            return "\(label) did not print \(expected) within \(Self.seconds(timeout)) s"
                + Self.tail(of: output, named: "standard output") + Self.tail(of: standardError, named: "standard error")
                + Self.sandboxNote(label)
        }
    }

    /// The sandbox's paragraph of a failure report, empty for a process that ran without one.
    static func sandboxNote(_ label: ProcessLabel) -> String {
        label.sandboxNote.map { "\n" + $0 } ?? ""
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The last lines of `text`, indented, for a message; empty when there are none.
    static func tail(of text: String, named name: String, lines: Int = 20) -> String {
        let all = OutputLines.all(text).filter { !$0.isEmpty }
        guard !all.isEmpty else { return "; its \(name) was empty" }
        let shown = all.suffix(lines)
        let heading = shown.count < all.count ? "the last \(shown.count) lines of its \(name)" : "its \(name)"
        return "; \(heading):\n" + shown.map { "    " + $0 }.joined(separator: "\n")
    }
}

/// The executable a test asked for by name is not among the built products.
public struct ExecutableNotBuilt: CustomStringConvertible, Sendable {
    /// The product name that was looked for.
    public let name: String
    /// The target it was to run as, when a device was asked to run it.
    public let target: SimulatedTarget?
    /// The device it was to run on, if any.
    public let deviceDirectory: URL?

    init(name: String, target: SimulatedTarget? = nil, deviceDirectory: URL? = nil) {
        self.name = name
        self.target = target
        self.deviceDirectory = deviceDirectory
    }

    public var description: String {
        var purpose = ""
        if let target { purpose += " (to run as \(target)" }
        if let deviceDirectory { purpose += (purpose.isEmpty ? " (to run" : "") + " on the simulated device at \(deviceDirectory.path)" }
        if !purpose.isEmpty { purpose += ")" }
        return "\(name)\(purpose) was not found beside the test bundle (.build/<configuration>/\(name)): "
            + "build it first with `swift build --build-tests`, and make the test target depend on the executable target \(name) so that it is built with the tests"
    }
}
