import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import DeviceTestSupport

/// A fresh simulated device with the Notes group's container made by its app, and
/// the built `appgroup` binary run against it as a subprocess.
final class CLIFixture {
    static let group = NotesExample.groupIdentifier

    let device: SimulatedDevice
    let notes: NotesExample
    let container: URL

    init() throws {
        device = try SimulatedDevice(name: "AppGroupCLITests")
        notes = try NotesExample()
        container = try device.run(as: notes.app) { try $0.requireContainerURL(forSecurityApplicationGroupIdentifier: Self.group) }
    }

    deinit { device.remove() }

    /// `.build/debug/<name>`, built with the test target (it depends on it).
    static func binary(_ name: String) throws -> URL {
        try SimulatedDevice.requireBuiltExecutable(named: name)
    }

    /// Runs `appgroup arguments` with the device's root in APP_GROUP_CONTAINERS_ROOT
    /// and no identity in the environment: the tool needs none.
    func appgroup(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ProcessOutcome {
        try device.spawn(try Self.binary("appgroup"), arguments, as: nil, environment: extra, timeout: 60)
    }

    /// `appgroup arguments`, which must succeed; returns its standard output.
    @discardableResult
    func succeed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let outcome = try appgroup(arguments)
        #expect(outcome.succeeded, "appgroup \(arguments) failed: \(outcome.status) \(outcome.standardError)", sourceLocation: sourceLocation)
        return outcome.standardOutput
    }

    /// `appgroup arguments` parsed as JSON.
    func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let output = try succeed(arguments + ["--json"], sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed])
    }

    /// `appgroup arguments`, which must fail with `status`, print nothing on standard
    /// output and one line on standard error holding every one of `phrases`.
    @discardableResult
    func fail(_ arguments: [String], status: Int32, _ phrases: [String] = [],
              sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessOutcome {
        let outcome = try appgroup(arguments)
        #expect(outcome.signal == nil && !outcome.timedOut, sourceLocation: sourceLocation)
        #expect(outcome.status == status, "appgroup \(arguments): status \(outcome.status), stderr \(outcome.standardError)", sourceLocation: sourceLocation)
        #expect(outcome.standardOutput.isEmpty, "appgroup \(arguments) printed \(outcome.standardOutput)", sourceLocation: sourceLocation)
        #expect(outcome.standardError.split(separator: "\n").count == 1, "appgroup \(arguments): stderr \(outcome.standardError)", sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(outcome.standardError.contains(phrase), "appgroup \(arguments): \"\(phrase)\" not in \(outcome.standardError)", sourceLocation: sourceLocation)
        }
        return outcome
    }

    /// Runs `script` with bash (`$1`... are `arguments`, `$APPGROUP` the built tool),
    /// in the device's environment: for pipes and standard input.
    func bash(_ script: String, _ arguments: [String] = []) throws -> ProcessOutcome {
        let environment = device.environment(for: nil, extra: ["APPGROUP": try Self.binary("appgroup").path])
        return try LaunchedProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, "bash"] + arguments,
                                       environment: environment, timeout: 60)
    }

    /// The group's own suite as the Notes app sees it, in this process.
    func appDefaults() throws -> SharedDefaults {
        try SharedDefaults(requiringSuiteName: Self.group, resolver: device.resolver(for: notes.app))
    }

    /// The suite file of the group's own suite.
    var suiteFile: URL {
        container.appendingPathComponent("Library/Preferences/\(Self.group).plist")
    }
}
