import AppGroupSystem
import Foundation

// The lifecycle of a launched target, as iOS drives an app or an extension:
// background, suspension (and 0xdead10cc), resumption, termination, jetsam.
// <doc:TheLifecycle> says what is emulated and what is not.
extension SimulatedDevice {
    /// How this device runs its targets' lifecycle (background time, deadlines,
    /// iOS's lock rule). Set it before the requests it should apply to.
    public var lifecycleSettings: LifecycleSettings {
        get { life.lifecycle.settings }
        set { life.lifecycle.settings = newValue }
    }

    /// Every ending of a target's process this device caused or saw, first first:
    /// 0xdead10cc, jetsam, termination, crash, exit.
    public var terminations: [TerminationReport] { life.lifecycle.terminations }

    /// Where `process` is in its life.
    /// - Throws: ``SimulationError/lifecycle(_:)`` when it was not launched as a target of this device.
    public func lifecycleState(of process: LaunchedProcess) throws -> LifecycleState {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "read the state of")
            connection.condition.lock()
            defer { connection.condition.unlock() }
            return connection.state
        }
    }

    /// Sends `process` to the background, as iOS does when the user leaves the
    /// app or the extension's host goes away: it is told (`willResignActive`, then
    /// `didEnterBackground`; an extension gets the `NSExtensionHost...` names) on
    /// `NotificationCenter.default`, and this returns once its observers returned.
    /// - Throws: ``SimulationError/lifecycle(_:)``: it is not in the foreground, has ended, or did not acknowledge in time.
    public func moveToBackground(_ process: LaunchedProcess) throws {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "move to the background")
            try connection.require([.foreground], request: "move to the background")
            let traced = connection.traceRequest("background")
            defer { traced?.end() }
            let settings = lifecycleSettings
            for name in LifecycleNotificationName.toBackground(connection.target.kind) {
                try connection.post(name, request: "move to the background", timeout: settings.acknowledgementTimeout, grace: settings.listenerGrace)
            }
            connection.set(.background)
        }
    }

    /// What a suspension came to.
    public enum SuspensionResult: Sendable, Hashable {
        /// Suspended: stopped, holding no lock iOS forbids.
        case suspended
        /// Killed on suspension as iOS kills it (0xdead10cc): the report says with which locks.
        case killed(TerminationReport)
    }

    /// Suspends `process`, as iOS does a while after it went to the background:
    /// first it waits for its background activities to end (or, at
    /// ``LifecycleSettings/backgroundTimeLimit``, runs their expiration handlers
    /// in the process), then stops it (SIGSTOP) and reads every lock it holds.
    /// A lock iOS forbids (``SuspensionLockRule``) gets it killed with 0xdead10cc,
    /// recorded in ``terminations``.
    /// - Throws: ``SimulationError/lifecycle(_:)``: it is not in the background, has ended, or the kernel did not stop it in time.
    @discardableResult
    public func suspend(_ process: LaunchedProcess) throws -> SuspensionResult {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "suspend")
            try connection.require([.background], request: "suspend")
            let traced = connection.traceRequest("suspend")
            defer { traced?.end() }
            let settings = lifecycleSettings
            try connection.waitForBackgroundActivities(limit: settings.backgroundTimeLimit, settings: settings)
            let pid = process.processIdentifier
            try signal(SIGSTOP, connection: connection, request: "suspend")
            try waitForState(pid, connection: connection, request: "suspend", timeout: settings.signalTimeout) { $0 == .stopped }
            let violations = SuspensionLockCheck.violations(of: pid, deviceRoot: root.path, home: connection.home, rule: settings.lockRule)
            guard violations.isEmpty else {
                connection.condition.lock()
                connection.causedEnd = (.heldLockWhileSuspended, violations, .suspended)
                connection.condition.unlock()
                try signal(SIGKILL, connection: connection, request: "kill (0xdead10cc)")
                guard let report = connection.waitForReport(timeout: settings.signalTimeout) else {
                    throw LifecycleError(problem: .noEffect(seconds: settings.signalTimeout), request: "kill (0xdead10cc)",
                                         state: .suspended, process: connection.processDescription)
                }
                return .killed(report)
            }
            connection.set(.suspended)
            return .suspended
        }
    }

    /// Resumes `process` into the foreground: a suspended one is continued
    /// (SIGCONT) first; then it is told (`willEnterForeground`, then
    /// `didBecomeActive`, or the extension host's names).
    /// - Throws: ``SimulationError/lifecycle(_:)``: it is already in the foreground (resume
    ///   before suspend or background), has ended, or did not acknowledge in time.
    public func resume(_ process: LaunchedProcess) throws {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "resume")
            let state = try connection.require([.background, .suspended], request: "resume")
            let traced = connection.traceRequest("resume")
            defer { traced?.end() }
            let settings = lifecycleSettings
            if state == .suspended {
                try signal(SIGCONT, connection: connection, request: "resume")
                try waitForState(process.processIdentifier, connection: connection, request: "resume", timeout: settings.signalTimeout) { $0 != .stopped }
                connection.set(.background)
            }
            for name in LifecycleNotificationName.toForeground(connection.target.kind) {
                try connection.post(name, request: "resume", timeout: settings.acknowledgementTimeout, grace: settings.listenerGrace)
            }
            connection.set(.foreground)
        }
    }

    /// Terminates `process` as iOS terminates an app it ends: an app that is not
    /// suspended is told (`willTerminate`) and then killed; a suspended one, and
    /// an extension, are killed without a word (iOS tells neither).
    /// - Returns: the termination, as recorded in ``terminations``.
    /// - Throws: ``SimulationError/lifecycle(_:)`` when it has ended already or did not acknowledge in time.
    @discardableResult
    public func terminate(_ process: LaunchedProcess) throws -> TerminationReport {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "terminate")
            let state = try connection.require([.foreground, .background, .suspended], request: "terminate")
            let traced = connection.traceRequest("terminate")
            defer { traced?.end() }
            let settings = lifecycleSettings
            if state != .suspended {
                for name in LifecycleNotificationName.beforeTermination(connection.target.kind) {
                    try connection.post(name, request: "terminate", timeout: settings.acknowledgementTimeout, grace: settings.listenerGrace)
                }
            }
            return try kill(connection, reason: .terminatedBySystem, state: state, request: "terminate")
        }
    }

    /// Kills `process` without warning, as jetsam does (in any state but ended).
    /// - Returns: the termination, as recorded in ``terminations``.
    /// - Throws: ``SimulationError/lifecycle(_:)`` when it has ended already.
    @discardableResult
    public func jetsam(_ process: LaunchedProcess) throws -> TerminationReport {
        try SimulationError.passingUp {
            let connection = try connection(for: process, request: "jetsam")
            let state = try connection.require([.foreground, .background, .suspended], request: "jetsam")
            let traced = connection.traceRequest("jetsam")
            defer { traced?.end() }
            return try kill(connection, reason: .jetsam, state: state, request: "jetsam")
        }
    }

    /// The report of `process`'s end once the device has seen it (nil when it
    /// has not ended within `timeout` seconds).
    /// - Throws: ``SimulationError/lifecycle(_:)`` when it was not launched as a target of this device.
    public func termination(of process: LaunchedProcess, timeout: TimeInterval = 30) throws -> TerminationReport? {
        try SimulationError.passingUp {
            try connection(for: process, request: "wait for the end of").waitForReport(timeout: timeout)
        }
    }

    // MARK: - Inside

    func connection(for process: LaunchedProcess, request: String) throws(LifecycleError) -> LifecycleConnection {
        guard process.deviceDirectory == directory, let connection = life.lifecycle.connection(for: process.processIdentifier) else {
            throw LifecycleError(problem: .notATarget, request: request, state: nil,
                                 process: "`\(process.executable.lastPathComponent)` [\(process.processIdentifier)]")
        }
        return connection
    }

    func kill(_ connection: LifecycleConnection, reason: TerminationReason, state: LifecycleState,
              request: String) throws(LifecycleError) -> TerminationReport {
        let locks = SuspensionLockCheck.all(of: connection.pid)
        connection.condition.lock()
        connection.causedEnd = (reason, locks, state)
        connection.condition.unlock()
        try signal(SIGKILL, connection: connection, request: request)
        let timeout = lifecycleSettings.signalTimeout
        guard let report = connection.waitForReport(timeout: timeout) else {
            throw LifecycleError(problem: .noEffect(seconds: timeout), request: request, state: state, process: connection.processDescription)
        }
        return report
    }

    func signal(_ signal: Int32, connection: LifecycleConnection, request: String) throws(LifecycleError) {
        // Under the lock of the process object: once it has seen the end, the pid may be another process's.
        guard let process = connection.launched else { return }
        process.state.lock()
        defer { process.state.unlock() }
        guard !process.exited else {
            throw LifecycleError(problem: .ended, request: request, state: .ended, process: connection.processDescription)
        }
        try? ProcessSystemCalls.send(signal, to: process.processIdentifier)
    }

    func waitForState(_ pid: Int32, connection: LifecycleConnection, request: String, timeout: TimeInterval,
                      _ done: (ProcessState) -> Bool) throws(LifecycleError) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let now = ProcessState.of(pid)
            if done(now) { return }
            if now == .ended || now == .unknown {
                throw LifecycleError(problem: .ended, request: request, state: .ended, process: connection.processDescription)
            }
            if Date() > deadline {
                throw LifecycleError(problem: .noEffect(seconds: timeout), request: request, state: connection.currentState,
                                     process: connection.processDescription)
            }
            usleep(2_000)
        }
    }
}

extension LifecycleConnection {
    var launched: LaunchedProcess? {
        condition.lock()
        defer { condition.unlock() }
        return processObject
    }

    var currentState: LifecycleState {
        condition.lock()
        defer { condition.unlock() }
        return state
    }

    func set(_ new: LifecycleState) {
        condition.lock()
        if state != .ended { state = new }
        condition.unlock()
    }

    /// The state now, when it is one of `allowed`; else the error iOS's order calls for.
    @discardableResult
    func require(_ allowed: Set<LifecycleState>, request: String) throws(LifecycleError) -> LifecycleState {
        condition.lock()
        let now = streamEnded || report != nil ? LifecycleState.ended : state
        condition.unlock()
        if now == .ended { throw LifecycleError(problem: .ended, request: request, state: .ended, process: processDescription) }
        guard allowed.contains(now) else { throw LifecycleError(problem: .order, request: request, state: now, process: processDescription) }
        return now
    }

    /// Waits until no background activity runs in the target; at `limit` seconds
    /// after the first began, tells the target each expired (its expiration handler
    /// runs there), as iOS does before it suspends.
    func waitForBackgroundActivities(limit: TimeInterval, settings: LifecycleSettings) throws(LifecycleError) {
        condition.lock()
        let first = activities.values.map(\.began).min()
        guard let first else { condition.unlock(); return }
        let deadline = first.addingTimeInterval(limit)
        while !activities.isEmpty && !streamEnded && condition.wait(until: deadline) {}
        let expired = activities.keys.sorted()
        let handlers = expired.compactMap { testExpirationHandlers.removeValue(forKey: $0) }
        for id in expired {
            if let activity = activities.removeValue(forKey: id) {
                traceActivityEnded(id, reason: activity.reason, how: "expired at the background time limit")
            }
        }
        condition.unlock()
        // The test's own tasks first (in this process), then the target's activities (in its process).
        for handler in handlers { handler() }
        for id in expired where id > 0 {
            try send("expire", String(id), request: "suspend", timeout: settings.acknowledgementTimeout, grace: settings.listenerGrace,
                     naming: "the expiration of background activity \(id)")
        }
    }
}
