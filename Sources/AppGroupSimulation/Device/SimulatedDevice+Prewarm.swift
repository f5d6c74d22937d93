import AppGroupContainer
import Foundation

// Prewarming: iOS may launch an app before the user opens it, even before the
// first unlock after a restart, with `ActivePrewarm=1` in its environment; code
// that reads its shared suite or keychain then sees nothing and may take the
// user for a new one. <doc:DataProtection> shows the failure and the fix.
extension SimulatedDevice {
    /// The environment variable iOS sets, to `1`, in a prewarmed app's process.
    public static let prewarmEnvironmentKey = "ActivePrewarm"

    /// Starts `executable` as `target`, prewarmed when `prewarmed` is true: as
    /// ``launch(_:_:as:environment:)`` with `ActivePrewarm=1` in its environment,
    /// as iOS launches an app ahead of its use, in whatever state the device is
    /// (``reboot()`` first to play the launch before first unlock).
    /// - Throws: ``SimulationError/container(_:)`` for a prewarmed launch of a
    ///   target that is not an app, or on a powered-off device; what a launch throws.
    public func launch(_ executable: URL, _ arguments: [String], as target: SimulatedTarget,
                       environment extra: [String: String] = [:], prewarmed: Bool) throws -> LaunchedProcess {
        guard prewarmed else { return try launch(executable, arguments, as: target, environment: extra) }
        let state = try self.state
        guard target.kind == .app, state.condition != .poweredOff else {
            throw SimulationError.container(.deviceStateChangeRefused(operation: "prewarm \(target.name) on", state: state.description,
                problem: target.kind == .app ? "a powered-off device launches nothing: reboot() it first"
                    : "iOS prewarms apps only, and \(target.name) is a \(target.kind)"))
        }
        return try launch(executable, arguments, as: target, environment: extra.merging([Self.prewarmEnvironmentKey: "1"]) { $1 })
    }

    /// ``launch(_:_:as:environment:prewarmed:)`` of the executable product `name`
    /// (built beside the test bundle).
    public func launch(built name: String, _ arguments: [String], as target: SimulatedTarget,
                       environment extra: [String: String] = [:], prewarmed: Bool) throws -> LaunchedProcess {
        try launch(builtExecutable(named: name, for: target), arguments, as: target, environment: extra, prewarmed: prewarmed)
    }
}
