import Testing
import AppGroupTesting

/// The details of each case of ``SimulationError``, for tests that assert on them.
extension SimulationError {
    package var processFailure: ProcessFailure? { if case .processFailed(let detail) = self { detail } else { nil } }
    package var executableNotBuilt: ExecutableNotBuilt? { if case .executableNotBuilt(let detail) = self { detail } else { nil } }
    package var invalidDeviceName: InvalidDeviceName? { if case .invalidDeviceName(let detail) = self { detail } else { nil } }
    package var invalidKeepPolicy: InvalidKeepPolicy? { if case .invalidKeepPolicy(let detail) = self { detail } else { nil } }
    package var invalidInfoPlist: InvalidInfoPlist? { if case .invalidInfoPlist(let detail) = self { detail } else { nil } }
    package var buildSetting: BuildSettingFailure? { if case .buildSetting(let detail) = self { detail } else { nil } }
    package var sandbox: SandboxFailure? { if case .sandbox(let detail) = self { detail } else { nil } }
}

extension SimulationError {
    package var lifecycle: LifecycleError? { if case .lifecycle(let detail) = self { detail } else { nil } }
    package var exploration: ExplorationFailure? { if case .exploration(let detail) = self { detail } else { nil } }
    package var scheduleFile: ScheduleFileError? { if case .scheduleFile(let detail) = self { detail } else { nil } }
    package var replayLine: ReplayLineError? { if case .replayLine(let detail) = self { detail } else { nil } }
    package var nondeterminism: ExplorationNondeterminism? { if case .nondeterminism(let detail) = self { detail } else { nil } }
    package var traceNotRecorded: TraceNotRecorded? { if case .traceNotRecorded(let detail) = self { detail } else { nil } }
}

/// Runs `body`, which must throw the ``SimulationError`` case `detail` picks out,
/// and returns that case's details; records an issue (and returns nil) when it
/// throws nothing, another error or another case.
@discardableResult
package func expectSimulationError<Detail>(_ detail: KeyPath<SimulationError, Detail?>, sourceLocation: SourceLocation = #_sourceLocation,
                                           _ body: () throws -> Void) -> Detail? {
    do {
        try body()
        Issue.record("expected a SimulationError; nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as SimulationError {
        if let found = error[keyPath: detail] { return found }
        Issue.record("expected another case of SimulationError: \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a SimulationError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
