import AppGroupSystem
import Foundation

/// What a device keeps about its targets' lifecycles: the channel of each
/// process it launched as a target, the terminations it caused or saw, its settings.
final class DeviceLifecycle: Sendable {
    private struct State {
        var connections: [Int32: LifecycleConnection] = [:]
        var terminations: [TerminationReport] = []
        var refusals: [LifecycleError] = []
        var settings = LifecycleSettings()
    }
    private let state = Locked(State())
    let memory = MemoryLimits()

    func register(_ connection: LifecycleConnection, for pid: Int32) {
        state.withLock { $0.connections[pid] = connection }
    }

    func connection(for pid: Int32) -> LifecycleConnection? {
        state.withLock { $0.connections[pid] }
    }

    /// The connections of targets whose process the device has not seen end.
    var liveConnections: [LifecycleConnection] {
        state.withLock { Array($0.connections.values) }.filter { $0.currentState != .ended }
    }

    func append(_ report: TerminationReport) {
        state.withLock { $0.terminations.append(report) }
    }

    var terminations: [TerminationReport] { state.withLock { $0.terminations } }

    /// Records what the device refused to read from a target's channel.
    func refused(_ error: LifecycleError) {
        state.withLock { $0.refusals.append(error) }
    }

    /// What the device refused to read from its targets' channels, oldest first.
    var refusals: [LifecycleError] { state.withLock { $0.refusals } }

    var settings: LifecycleSettings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }
}
