import AppGroupContainer
import Foundation

/// What a device has seen of its test: failures, and the test verdict that holds it.
final class DeviceLife: Sendable {
    private struct State {
        var failures: [String] = []
        var verdict: TestVerdict?
        var ended = false
    }
    private let state = Locked(State())
    /// The targets' lifecycles: channels, terminations, settings (Lifecycle/).
    let lifecycle = DeviceLifecycle()
    /// WidgetKit's daemon: handles the widgets' reloads while the device lives (Widgets/).
    let widgets = WidgetDaemon()
    /// Every process the device launched, ended when the device ends (Processes/).
    let processes = DeviceProcesses()
    /// Whether bundles are copied even where a hard link would do (see `installsBundlesByCopy`).
    let copiesBundles = Locked(false)

    /// The device's own failures: those recorded, then what it refused from its targets' channels.
    var failures: [String] { state.withLock { $0.failures } + lifecycle.refusals.map(\.description) }
    func append(_ failure: String) { state.withLock { $0.failures.append(failure) } }

    var verdict: TestVerdict? {
        get { state.withLock { $0.verdict } }
        set { state.withLock { $0.verdict = newValue } }
    }

    /// True the first time only: the device ends once.
    func end() -> Bool {
        state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
    }
}

extension SimulatedDevice {
    /// True when something about this device's test failed. What counts:
    /// - the body of ``with(name:_:)`` (or its async form) threw;
    /// - an AppGroupTesting check on this device failed: ``ProcessOutcome/requireSuccess()``
    ///   or ``LaunchedProcess/requireLine(_:timeout:)`` on a process it ran, or a
    ///   missing executable it was asked to run (``ExecutableNotBuilt``);
    /// - ``recordFailure(_:)`` was called;
    /// - a target wrote on its lifecycle channel what the device refuses (a
    ///   ``LifecycleError`` of problem ``LifecycleError/Problem/oversizedMessage(bytes:limit:)``);
    /// - a process it launched outlived its end (``leakedProcesses``);
    /// - with Swift Testing's `.simulatedDevices` trait (``SimulatedDevicesTrait``), any issue the
    ///   test recorded (a failed `#expect` or `#require`, an error it threw);
    /// - for a device from `XCTestCase.makeSimulatedDevice()`, any failure of the test.
    ///
    /// Without the trait, a failed `#expect` that throws nothing is not seen:
    /// Swift Testing tells only traits about issues.
    public var hasFailed: Bool { !failures.isEmpty }

    /// What failed, first first: this device's own failures, then the test's.
    public var failures: [String] {
        var all = life.failures
        if let failure = life.verdict?.failure { all.append("the test \(life.verdict?.testName ?? "") failed: \(failure)") }
        return all
    }

    /// The processes that outlived the device's end, each described with its pid
    /// (empty until ``remove()`` has ended the device): a process it launched, or
    /// one those started, that it could not end. The `.simulatedDevices` trait and
    /// `makeSimulatedDevice()` fail the test with each.
    public var leakedProcesses: [String] { life.processes.leaks }

    /// Marks the device failed, so that `APPGROUP_KEEP_DEVICE=on-failure` keeps it.
    public func recordFailure(_ description: String) {
        life.append(description)
    }

    /// Ends the device: ends every process it launched (with every process those
    /// started, stopped or not), then removes its directory and everything in it, unless
    /// ``keepPolicy`` keeps it (`always`, or `on-failure` and ``hasFailed``); a kept
    /// device's path and the `appgroup` command that inspects it go to standard error.
    /// A device held by a running test's verdict (the `.simulatedDevices` (``SimulatedDevicesTrait``)
    /// trait, `XCTestCase.makeSimulatedDevice()`) ends when the test ends instead,
    /// once its verdict is known. Safe to call twice.
    public func remove() {
        if let verdict = life.verdict, verdict.isRunning { return }
        guard life.end() else { return }
        LiveDevices.remove(self)
        life.widgets.stop()
        for leak in life.processes.end(device: directory) {
            life.append(leak)
            FileHandle.standardError.write(Data("AppGroupTesting: \(leak)\n".utf8))
        }
        let failures = failures
        let kept = keepPolicy.keeps(failed: !failures.isEmpty)
        reportTerminations(failed: !failures.isEmpty, kept: kept)
        finishTrace(kept: kept)
        if kept {
            announceKept(failures: failures)
        } else {
            // By descriptor: the targets wrote in there, and a link one left is
            // removed, never followed.
            do {
                try HeldDirectory.removeTree(atPath: directory.path)
            } catch {
                FileHandle.standardError.write(Data("AppGroupTesting: the simulated device at \(directory.path) could not be removed whole: \(error)\n".utf8))
            }
        }
    }

    /// Straight to standard error, not through `Diagnostics.handler`: a test
    /// process may silence diagnostics, and this line is what the user asked for.
    private func announceKept(failures: [String]) {
        var why = "\(KeepPolicy.environmentKey)=\(keepPolicy.rawValue)"
        if let first = failures.first {
            let line = first.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? first
            why += "; \(line)"
        }
        // `swift run`: appgroup is an executable product of this package, so it
        // runs from any package that depends on it, but it is not on the PATH.
        let text = "AppGroupTesting: kept the simulated device at \(directory.path) (\(why))\n"
            + "AppGroupTesting: inspect it with: swift run appgroup list --root \(root.path)\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
