import AppGroupContainer
import Foundation

/// A temporary simulated device: a fresh container root, removed when the device
/// is removed (or deallocated). Run code as one of its targets, or run an
/// executable as that target, to test what crosses between an app and its
/// extensions with real processes and real files.
///
/// ```swift
/// @Test(.simulatedDevices) func theAppSeesWhatTheExtensionShared() async throws {
///     try await SimulatedDevice.with { device in
///         let app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "A1B2C3D4E5",
///                                       bundleIdentifier: "com.example.notes", applicationGroups: ["group.com.example.notes"])
///         let share = try SimulatedTarget(name: "NotesShare", kind: .shareExtension, teamIdentifier: "A1B2C3D4E5",
///                                         bundleIdentifier: "com.example.notes.share", applicationGroups: ["group.com.example.notes"])
///         try await device.run(built: "NotesShareHost", ["--url", "https://example.com"],
///                              as: share).requireSuccess()
///         let url = try device.run(as: app) { resolver in
///             try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.com.example.notes")
///         }
///         #expect(FileManager.default.fileExists(atPath: url.path))
///     }
/// }
/// ```
///
/// Keeping a device to look at after a failure: run the tests with
/// `APPGROUP_KEEP_DEVICE=on-failure` (or `always`; see ``KeepPolicy``). A kept
/// device's path is printed to standard error with the `appgroup` command that
/// inspects it. What counts as a failure: see ``hasFailed``.
public final class SimulatedDevice: Sendable {
    /// The device's container root (what `APP_GROUP_CONTAINERS_ROOT` names in
    /// spawned processes). Containers are `<root>/<group>/`.
    public let root: URL
    /// A scratch directory beside the root (outside every container), for files a
    /// test hands to a target, such as what a share sheet passes an extension.
    public let scratch: URL
    /// A directory beside the root (outside every container) for escape checks:
    /// a test points planted links here, and nothing the library does on the
    /// device's behalf may ever write here.
    public let outside: URL
    /// The device's own directory, which holds ``root``, ``scratch`` and
    /// ``outside``; everything in it goes with ``remove()``.
    public var directory: URL { base }
    private let base: URL
    /// Whether the device is kept when it is removed (from `APPGROUP_KEEP_DEVICE` by default).
    public let keepPolicy: KeepPolicy
    let life = DeviceLife()
    let tracing = DeviceTracing()

    /// Makes a fresh, empty device under the system's temporary directory.
    ///
    /// Made inside a test that carries the `.simulatedDevices` (``SimulatedDevicesTrait``)
    /// trait (Swift Testing) or by `XCTestCase.makeSimulatedDevice()`, the device
    /// stays until the test ends, and then follows the test's verdict.
    /// - Parameters:
    ///   - name: a prefix for the directory name, to recognise it.
    ///   - keepPolicy: what ``remove()`` does; nil reads `APPGROUP_KEEP_DEVICE`.
    /// - Throws: ``SimulationError/invalidDeviceName(_:)`` for a name that is not one short file name;
    ///   ``SimulationError/invalidKeepPolicy(_:)`` when `APPGROUP_KEEP_DEVICE` holds an unknown
    ///   value; `AppGroupError` when the directory cannot be made.
    public init(name: String = "SimulatedDevice", keepPolicy: KeepPolicy? = nil) throws {
        if let problem = InvalidDeviceName.problem(with: name) { throw SimulationError.invalidDeviceName(InvalidDeviceName(name: name, problem: problem)) }
        self.keepPolicy = try keepPolicy ?? KeepPolicy()
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else {
            throw SimulationError.container(AppGroupError.systemCall(operation: "mkdtemp", path: template, errno: .current))
        }
        let path = String(decoding: bytes.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        base = URL(fileURLWithPath: path, isDirectory: true).resolvingSymlinksInPath()
        root = base.appendingPathComponent("containers", isDirectory: true)
        scratch = base.appendingPathComponent("scratch", isDirectory: true)
        outside = base.appendingPathComponent("outside", isDirectory: true)
        // Coordination trees of the device's own (the root's, and the device's for
        // items in scratch/), so that no lock file outlives the device. Each is
        // made while its directory is still empty: a tree is born with its root.
        try CoordinationTree.prepare(root: base.path)
        for directory in [root, scratch, outside] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try CoordinationTree.prepare(root: root.path)
        try tracing.start(TraceOption.fromEnvironment, device: self)
        LiveDevices.add(self)
        ScopeRefusalRecorder.installed
        if let verdict = TestVerdict.current, verdict.adopt(self) { life.verdict = verdict }
    }

    /// Runs `body` with a fresh device and removes the device afterwards (see
    /// ``remove()``: a device whose `body` threw counts as failed).
    @discardableResult
    public static func with<T>(name: String = "SimulatedDevice", _ body: (SimulatedDevice) throws -> T) throws -> T {
        let device = try SimulatedDevice(name: name)
        defer { device.remove() }
        do {
            return try body(device)
        } catch {
            device.recordFailure("the body of SimulatedDevice.with threw \(error)")
            throw error
        }
    }

    deinit { remove() }

    /// A resolver that answers as `target` does on this device.
    public func resolver(for target: SimulatedTarget) -> ContainerResolver {
        ContainerResolver(root: root, entitlements: target.entitlements)
    }

    /// Runs `body` as `target` on this device: it receives the target's resolver,
    /// and every API that asks who is calling (`FileManager.default.containerURL`,
    /// the defaults suites, `SecItem...`) answers as `target` on this device; from
    /// work `body` hops to a queue or a thread, while no other target's scope is live
    /// (else that work is refused). See ``SimulatedTarget/run(on:environment:_:)``
    /// for the model; the resolver `body` receives is never refused.
    public func run<T>(as target: SimulatedTarget, _ body: (ContainerResolver) throws -> T) rethrows -> T {
        let resolver = resolver(for: target)
        return try scope(for: target).run { try body(resolver) }
    }

    /// The identity scope of `target` on this device: its entitlements, this
    /// device's root, and `environment` (for example `APP_GROUP_KEYCHAIN_DEVICE`).
    public func scope(for target: SimulatedTarget, environment: [String: String] = [:]) -> IdentityScope {
        // The target's name, for the diagnostics' "who speaks" (Diagnostics.speaker).
        IdentityScope(entitlements: target.entitlements, root: root,
                      environment: [Diagnostics.targetNameKey: target.name].merging(environment) { $1 })
    }

    /// Where `group`'s container is on this device, without any entitlement check
    /// (for a test's own inspection; nothing is created).
    /// - Throws: ``SimulationError/container(_:)`` for an invalid group identifier.
    public func containerLocation(for group: String) throws -> URL {
        try SimulationError.passingUp {
            ContainerResolver(root: root, entitlements: try Entitlements(applicationIdentifier: "TESTTEAM00.inspector"))
                .containerLocation(for: try GroupIdentifier(group))
        }
    }

    /// Writes `size` random bytes to a new file `name` in ``scratch`` (outside
    /// every container, like a file a share sheet hands an extension).
    /// - Returns: the file and the bytes written, to compare with what arrives.
    public func makeScratchFile(named name: String = "payload.bin", randomBytes size: Int) throws -> (url: URL, data: Data) {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<max(size, 0)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let url = scratch.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }

    /// The entries under `directory` (recursively) that are not directories, as
    /// sorted relative paths; links are listed, not followed. The package's own
    /// coordination trees (`.coordination/`, its lock and signal files) are left
    /// out. Empty when `directory` cannot be listed.
    public static func files(under directory: URL) -> [String] {
        let manager = FileManager.default
        let paths = (try? manager.subpathsOfDirectory(atPath: directory.path)) ?? []
        let tree = CoordinationTree.directoryName
        return paths.filter { path in
            // The package's coordination trees (its lock and signal files) are not
            // the targets' files.
            if path == tree || path.hasPrefix(tree + "/") || path.contains("/" + tree + "/") { return false }
            let type = try? manager.attributesOfItem(atPath: directory.appendingPathComponent(path).path)[.type] as? FileAttributeType
            return type != .typeDirectory
        }.sorted()
    }

    /// The environment that makes a child process `target` on this device: the
    /// parent's environment, then the target's identity
    /// (`Entitlements.environment`) and `APP_GROUP_CONTAINERS_ROOT`,
    /// then `extra`.
    public func environment(for target: SimulatedTarget?, extra: [String: String] = [:]) -> [String: String] {
        var named = traceEnvironment(name: target?.name)
        if let target { named[Diagnostics.targetNameKey] = target.name }
        return environment(identity: target?.entitlements, extra: named.merging(extra) { $1 })
    }

    /// The environment that makes a child process act as `identity` (nil: no
    /// identity) on this device: the parent's environment without its own
    /// identity, then `identity`'s and `APP_GROUP_CONTAINERS_ROOT`, then `extra`.
    public func environment(identity: Entitlements?, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in [Entitlements.EnvironmentKey.entitlementsFile, Entitlements.EnvironmentKey.teamIdentifier,
                    Entitlements.EnvironmentKey.bundleIdentifier] {
            environment.removeValue(forKey: key)
        }
        environment.removeValue(forKey: Diagnostics.targetNameKey)
        if let identity { environment.merge(identity.environment) { $1 } }
        environment[ContainerResolver.rootEnvironmentKey] = root.path
        // What the calling test silenced (Diagnostics.silencing), the child silences too.
        let quiet = Diagnostics.silencedKinds
        if !quiet.isEmpty, environment[Diagnostics.quietKey] != "1" {
            environment[Diagnostics.quietKey] = quiet.map(\.rawValue).sorted().joined(separator: ",")
        }
        environment.merge(traceEnvironment(name: nil)) { $1 }
        environment.merge(extra) { $1 }
        return environment
    }

    /// Runs `executable` as `target` (nil: with no identity) and waits for it.
    /// Blocks the calling thread: in async code use ``run(_:_:as:environment:timeout:isolation:)``.
    /// - Parameters:
    ///   - executable: the program to run.
    ///   - arguments: its arguments.
    ///   - target: who it runs as; nil for no identity.
    ///   - extra: variables added to its environment, after the target's.
    ///   - timeout: seconds before the process is killed (SIGKILL) and
    ///     ``ProcessOutcome/timedOut`` is set.
    public func spawn(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                      environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> ProcessOutcome {
        let process = try launch(executable, arguments, as: target, environment: extra)
        return process.wait(timeout: timeout)
    }

    /// Runs the executable product `name` (built beside the test bundle) as
    /// `target` and waits for it. Blocks the calling thread: in async code use
    /// ``run(built:_:as:environment:timeout:isolation:)``.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` naming the target and this device when it is not built.
    public func spawn(built name: String, _ arguments: [String], as target: SimulatedTarget?,
                      environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> ProcessOutcome {
        try spawn(builtExecutable(named: name, for: target), arguments, as: target, environment: extra, timeout: timeout)
    }

    /// Starts `executable` as `target` and returns at once: read its lines as they
    /// come, kill it, wait for it. Its messages name the target and this device.
    /// It runs from the target's bundle, in its home, inside its sandbox: see
    /// ``launch(_:_:as:environment:sandbox:)``.
    public func launch(_ executable: URL, _ arguments: [String], as target: SimulatedTarget?,
                       environment extra: [String: String] = [:]) throws -> LaunchedProcess {
        try launch(executable, arguments, as: target, environment: extra, sandbox: .enforced)
    }

    /// Starts the executable product `name` (built beside the test bundle) as `target`.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` naming the target and this device when it is not built.
    public func launch(built name: String, _ arguments: [String], as target: SimulatedTarget?,
                       environment extra: [String: String] = [:]) throws -> LaunchedProcess {
        try launch(builtExecutable(named: name, for: target), arguments, as: target, environment: extra)
    }

    /// ``SimulatedDevice/requireBuiltExecutable(named:)``, with an error that says
    /// which target on this device wanted it; marks the device failed when missing.
    func builtExecutable(named name: String, for target: SimulatedTarget?) throws -> URL {
        guard let url = Self.builtExecutable(named: name) else {
            let error = ExecutableNotBuilt(name: name, target: target, deviceDirectory: directory)
            recordFailure(error.description)
            throw SimulationError.executableNotBuilt(error)
        }
        Self.reportIfStale(url)
        return url
    }

    /// The executable `name` built by SwiftPM beside the running test bundle
    /// (`.build/debug/<name>`), nil when none is found.
    public static func builtExecutable(named name: String) -> URL? {
        var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first { candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent()) }
        #if os(Linux)
        candidates.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        #endif
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"))
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// ``builtExecutable(named:)``, or an error that says how to build it.
    /// - Throws: ``SimulationError/executableNotBuilt(_:)`` when `name` is not built.
    public static func requireBuiltExecutable(named name: String) throws -> URL {
        guard let url = builtExecutable(named: name) else { throw SimulationError.executableNotBuilt(ExecutableNotBuilt(name: name)) }
        return url
    }
}
