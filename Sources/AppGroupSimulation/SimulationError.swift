import AppGroupContainer
import WidgetReloads
import Foundation

/// What the simulated device throws: one type for the module, each case carrying
/// the details of one kind of failure, and the container's own errors passed up
/// as ``container(_:)``.
///
/// Errors thrown by a test's own closures (the bodies of
/// ``SimulatedTarget/run(on:environment:_:)`` or ``SimulatedDevice/with(name:_:)``)
/// pass through unchanged: they are the test's, not the device's.
///
///     do {
///         try device.spawn(built: "NotesApp", ["launch"], as: notes.app).requireSuccess()
///     } catch SimulationError.processFailed(let failure) {
///         print(failure.standardError)
///     }
public enum SimulationError: Error, CustomStringConvertible, Sendable {
    /// A launched process did not do what the test required of it.
    case processFailed(ProcessFailure)
    /// The executable a test asked for by name is not among the built products.
    case executableNotBuilt(ExecutableNotBuilt)
    /// A device name that cannot prefix a directory name.
    case invalidDeviceName(InvalidDeviceName)
    /// `APPGROUP_KEEP_DEVICE` holds a value that is not a keep policy.
    case invalidKeepPolicy(InvalidKeepPolicy)
    /// A target's Info.plist cannot be used.
    case invalidInfoPlist(InvalidInfoPlist)
    /// A build setting could not be expanded, or an `.xcconfig` file read.
    case buildSetting(BuildSettingFailure)
    /// A target's sandbox could not be set up or applied.
    case sandbox(SandboxFailure)
    /// A lifecycle request the target's state does not allow, or that did not take effect.
    case lifecycle(LifecycleError)
    /// An explored schedule broke the test: its seed and order, to replay.
    case exploration(ExplorationFailure)
    /// A schedule file that cannot be replayed by this test.
    case scheduleFile(ScheduleFileError)
    /// A replay line that is malformed, or whose replay took another order.
    case replayLine(ReplayLineError)
    /// A schedule that ran two ways from one seed (the determinism check).
    case nondeterminism(ExplorationNondeterminism)
    /// A trace was asked of a device made without one.
    case traceNotRecorded(TraceNotRecorded)
    /// The device's widget records (WidgetKit's reloads and timelines) refused a
    /// request or could not be read.
    case widgets(WidgetStoreError)
    /// A share extension's reply was refused: a returned item that is not a
    /// regular file of its own, or a reply past ``ShareReplyLimits``.
    case shareReply(ShareReplyRefusal)
    /// The container layer failed below the device: resolving an identity,
    /// creating a container or a data container, installing a bundle.
    case container(AppGroupError)

    public var description: String {
        switch self {
        case .processFailed(let failure): failure.description
        case .executableNotBuilt(let missing): missing.description
        case .invalidDeviceName(let name): name.description
        case .invalidKeepPolicy(let policy): policy.description
        case .invalidInfoPlist(let plist): plist.description
        case .buildSetting(let setting): setting.description
        case .sandbox(let sandbox): sandbox.description
        case .lifecycle(let error): error.description
        case .exploration(let failure): failure.description
        case .scheduleFile(let error): error.description
        case .replayLine(let error): error.description
        case .nondeterminism(let report): report.description
        case .traceNotRecorded(let error): error.description
        case .widgets(let error): error.description
        case .shareReply(let refusal): refusal.description
        case .container(let error): error.description
        }
    }
}

extension SimulationError: LocalizedError {
    public var errorDescription: String? { description }
}

extension SimulationError {
    /// Runs `body`, the device's own work, passing up what it throws as a
    /// ``SimulationError``: the device's errors as they are, the container's as
    /// ``container(_:)``. Anything else is not the device's (a test's closure
    /// threw it) and passes through unchanged.
    static func passingUp<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw passedUp(error)
        }
    }

    /// `error` as the device passes it up: the container's errors and the
    /// module's own detail types (thrown inside it, typed where they can be) as
    /// cases; the rest (a test's own closures threw it) unchanged.
    static func passedUp(_ error: any Error) -> any Error {
        switch error {
        case let error as AppGroupError: SimulationError.container(error)
        case let error as BuildSettingFailure: SimulationError.buildSetting(error)
        case let error as LifecycleError: SimulationError.lifecycle(error)
        case let error as ExplorationFailure: SimulationError.exploration(error)
        case let error as ScheduleFileError: SimulationError.scheduleFile(error)
        case let error as ReplayLineError: SimulationError.replayLine(error)
        case let error as ExplorationNondeterminism: SimulationError.nondeterminism(error)
        case let error as TraceNotRecorded: SimulationError.traceNotRecorded(error)
        case let error as WidgetStoreError: SimulationError.widgets(error)
        default: error
        }
    }

    /// ``passingUp(_:)`` for asynchronous work.
    static func passingUp<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw passedUp(error)
        }
    }
}
