import AppGroupContainer
import AppGroupSystem
import Foundation

// Launching a target as iOS launches one: from its bundle, in its home, inside its
// sandbox. ``SimulatedDevice/launch(_:_:as:environment:)`` and the spawn and run
// forms without a `sandbox:` argument come here with ``SandboxMode/enforced``.
extension SimulatedDevice {
    /// Starts `executable` as `target` and returns at once, choosing its sandbox.
    ///
    /// The process runs as iOS runs the target: its executable is the one in the
    /// target's bundle on this device (so `Bundle.main` is the target's), its home
    /// is its data container (``DataContainer``: `NSHomeDirectory()`, the user
    /// domain's directories, `temporaryDirectory` and `UserDefaults.standard`
    /// answer inside it), its working directory is `/`, and with
    /// ``SandboxMode/enforced`` the kernel lets it reach only what
    /// ``SandboxProfile`` lists (<doc:TheSandbox>). With no target (nil) the
    /// executable runs as it is, with no identity, home or sandbox.
    /// - Parameters:
    ///   - executable: the program to run.
    ///   - arguments: its arguments.
    ///   - target: who it runs as; nil for no identity.
    ///   - extra: variables added to its environment, after the target's.
    ///   - sandbox: ``SandboxMode/enforced``, or ``SandboxMode/unenforced`` to debug.
    /// - Throws: ``SimulationError/sandbox(_:)`` when the sandbox cannot be set up or
    ///   the program cannot be started; ``SimulationError/container(_:)`` when its
    ///   containers or its bundle cannot be made.
    public func launch(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                       environment extra: [String: String] = [:], sandbox: SandboxMode) throws -> LaunchedProcess {
        // An exploring device's scheduler makes no decision while a launch is under way.
        try SimulationError.passingUp {
            try ExploringSchedulers.launching(on: directory) {
                try launching(executable, arguments, as: target, environment: extra, sandbox: sandbox)
            }
        }
    }

    /// ``launch(_:_:as:environment:sandbox:)``'s work, its errors not yet passed up.
    private func launching(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                           environment extra: [String: String], sandbox: SandboxMode) throws -> LaunchedProcess {
        guard let target else {
            let label = ProcessLabel(executable: executable, arguments: arguments, target: nil,
                                     deviceDirectory: directory, explicitEnvironment: false)
            let process = try LaunchedProcess(executable: executable, arguments: arguments,
                                              environment: environment(for: nil, extra: extra), label: label)
            life.processes.add(process, device: directory)
            return process
        }
        // The bundle first: it refuses a missing executable before anything is made.
        let (bundle, bundled) = try BundleFolder.install(target, executable: executable, deviceDirectory: directory,
                                                         copying: installsBundlesByCopy)
        let home = try target.dataContainer(on: self)
        var variables = environment(for: target)
        variables.merge(home.environment) { $1 }
        variables.merge(extra) { $1 }
        let traceHome = try launchTraceDirectory(for: target)
        if let traceHome { variables[Tracing.directoryEnvironmentKey] = traceHome.path }
        var ruleset: Int32?
        var writable: [String] = []
        var note: String?
        if KernelSandbox.effectiveMode(sandbox) == .enforced {
            switch KernelSandbox.availability {
            case .available(let abi):
                let profile = try SandboxProfile.make(device: self, target: target, home: home, bundle: bundle, executable: executable,
                                                  trace: traceHome)
                ruleset = try profile.ruleset(abi: abi)
                writable = profile.readWrite.map(\.path)
                note = SandboxNote.enforced(target: target, home: home, device: self)
            case .unavailable(let reason):
                KernelSandbox.sayUnenforcedOnce()
                note = SandboxNote.unenforced(reason: reason)
            }
        } else if sandbox == .enforced {
            // Asked for, and turned off for the whole run: said once, and in every failure.
            KernelSandbox.sayUnenforcedOnce()
            note = SandboxNote.unenforced(reason: KernelSandbox.turnedOffReason)
        }
        defer { if let ruleset { SandboxSystemCalls.closeDescriptor(ruleset) } }
        var label = ProcessLabel(executable: executable, arguments: arguments, target: target,
                                 deviceDirectory: directory, explicitEnvironment: false)
        label.sandboxNote = note
        label.foundationSuites = FoundationSuiteCheck(preferences: home.preferences,
                                                      groups: target.entitlements.applicationGroups.map(\.rawValue), target: target.name)
        let variablesToPass = variables
        #if !os(Linux)
        // Elsewhere there is no Landlock (the probe said so above) and no spawn of
        // the package's own: Foundation's Process starts it, from its bundle, in its home.
        let process = try LaunchedProcess(executable: executable, arguments: arguments, label: label) { out, err in
            let process = Process()
            process.executableURL = bundled
            process.arguments = arguments
            process.environment = variablesToPass
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = out
            process.standardError = err
            try process.run()
            return (process.processIdentifier, process)
        }
        life.processes.add(process, device: directory)
        return process
        #else
        let rules = ruleset
        let metadataGuard = MetadataSandbox.current
        // A guard a test or benchmark chose is not news; the kernel's is, once.
        if rules != nil, MetadataSandbox.override == nil { MetadataSandbox.sayOnce(metadataGuard) }
        // The lifecycle channel (Lifecycle/LifecycleConnection.swift): the device keeps
        // one end, the target gets the other as descriptor 3.
        let channel = try lifecycleChannel(for: target, home: home)
        defer { SandboxSystemCalls.closeDescriptor(channel.targetEnd) }
        var withChannel = variablesToPass
        withChannel[LifecycleChannelKey.environment] = "3"
        let process = try LaunchedProcess(executable: executable, arguments: arguments, label: label) { [withChannel, writable] out, err in
            let input = try SandboxSystemCalls.openNullDevice()
            defer { SandboxSystemCalls.closeDescriptor(input) }
            do {
                let pid = try SandboxSystemCalls.spawn(bundled.path, arguments: [bundled.path] + arguments, environment: withChannel,
                                                       directory: "/", input: input,
                                                       output: out.fileHandleForWriting.fileDescriptor,
                                                       error: err.fileHandleForWriting.fileDescriptor,
                                                       channel: channel.targetEnd, ruleset: rules, restrictFlags: 0,
                                                       metadata: (metadataGuard, writable))
                return (pid, nil)
            } catch let error as SandboxSystemCalls.SpawnFailure {
                channel.connection.close()
                throw SimulationError.sandbox(SandboxFailure(operation: error.step.rawValue, path: bundled.path, errno: error.errno))
            }
        }
        life.processes.add(process, device: directory)
        attach(channel.connection, to: process)
        return process
        #endif
    }

    /// ``launch(_:_:as:environment:sandbox:)`` of the executable product `name`
    /// built beside the test bundle.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` naming the target and this device when it is not built.
    public func launch(built name: String, _ arguments: [String], as target: SimulatedTarget?,
                       environment extra: [String: String] = [:], sandbox: SandboxMode) throws -> LaunchedProcess {
        try launch(builtExecutable(named: name, for: target), arguments, as: target, environment: extra, sandbox: sandbox)
    }

    /// Runs `executable` as `target` in the chosen sandbox and waits for it
    /// (see ``spawn(_:_:as:environment:timeout:)``). Blocks the calling thread.
    public func spawn(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                      environment extra: [String: String] = [:], sandbox: SandboxMode, timeout: TimeInterval = 60) throws -> ProcessOutcome {
        try launch(executable, arguments, as: target, environment: extra, sandbox: sandbox).wait(timeout: timeout)
    }

    /// Runs the executable product `name` as `target` in the chosen sandbox and waits for it.
    public func spawn(built name: String, _ arguments: [String], as target: SimulatedTarget?,
                      environment extra: [String: String] = [:], sandbox: SandboxMode, timeout: TimeInterval = 60) throws -> ProcessOutcome {
        try spawn(builtExecutable(named: name, for: target), arguments, as: target, environment: extra, sandbox: sandbox, timeout: timeout)
    }

    /// The asynchronous form of ``spawn(_:_:as:environment:sandbox:timeout:)``.
    public func run(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                    environment extra: [String: String] = [:], sandbox: SandboxMode, timeout: TimeInterval = 60,
                    isolation: isolated (any Actor)? = #isolation) async throws -> ProcessOutcome {
        let process = try launch(executable, arguments, as: target, environment: extra, sandbox: sandbox)
        return await process.outcome(timeout: timeout)
    }

    /// The asynchronous form of ``spawn(built:_:as:environment:sandbox:timeout:)``.
    public func run(built name: String, _ arguments: [String], as target: SimulatedTarget?,
                    environment extra: [String: String] = [:], sandbox: SandboxMode, timeout: TimeInterval = 60,
                    isolation: isolated (any Actor)? = #isolation) async throws -> ProcessOutcome {
        try await run(builtExecutable(named: name, for: target), arguments, as: target, environment: extra,
                      sandbox: sandbox, timeout: timeout)
    }
}
