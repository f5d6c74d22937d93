import Foundation

extension LifecycleNotificationName {
    /// `UIApplication.didReceiveMemoryWarningNotification`.
    public static let didReceiveMemoryWarning = "UIApplicationDidReceiveMemoryWarningNotification"
}

extension SimulatedDevice {
    /// Applies `fault` to the target process `pid`, through the device's own
    /// lifecycle requests, while it waits for its turn at an explored step.
    /// - Returns: what came of it, the same words on every run of the same
    ///   schedule, and whether the process has ended (its end seen by the device).
    func applyExplorationFault(_ fault: ExplorationFault, to pid: Int32) -> (outcome: String, ended: Bool) {
        guard let connection = life.lifecycle.connection(for: pid) else { return ("not applied: not a target of the device", false) }
        let outcome = applyFault(fault, connection)
        return (outcome, connection.currentState == .ended)
    }

    private func applyFault(_ fault: ExplorationFault, _ connection: LifecycleConnection) -> String {
        guard let process = connection.launched else { return "not applied: not a target of the device" }
        do {
            if fault == .suspend {
                let state = connection.currentState
                guard state == .foreground else { return "not applied: it is \(state)" }
                try moveToBackground(process)
                switch try suspend(process) {
                case .killed(let report):
                    // iOS's crash in the field: the schedule fails whatever the test checks.
                    recordFailure("exploration: \(connection.processDescription) was suspended at an explored step while it held a lock "
                                  + "in a group container, and iOS kills it so: \(report)")
                    return "killed with 0xdead10cc"
                case .suspended:
                    try resume(process)
                    return "suspended, then resumed"
                }
            }
            if fault == .jetsam {
                _ = try jetsam(process)
                return "killed by jetsam"
            }
            if fault == .terminate {
                _ = try terminate(process)
                return "terminated"
            }
            if fault == .memoryWarning {
                let settings = lifecycleSettings
                try connection.post(LifecycleNotificationName.didReceiveMemoryWarning, request: "warn of memory pressure",
                                    timeout: settings.acknowledgementTimeout, grace: settings.listenerGrace)
                return "warned of memory pressure"
            }
            return "not applied: unknown fault"
        } catch let error as SimulationError {
            if case .lifecycle(let lifecycle) = error, lifecycle.problem == .ended || lifecycle.problem == .order {
                return lifecycle.problem == .ended ? "not applied: it ended" : "not applied: its state does not allow it"
            }
            recordFailure("exploration: iOS's \(fault) of \(connection.processDescription) failed: \(error)")
            return "failed"
        } catch {
            recordFailure("exploration: iOS's \(fault) of \(connection.processDescription) failed: \(error)")
            return "failed"
        }
    }
}
