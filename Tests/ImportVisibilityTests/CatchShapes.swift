// The shapes in which users catch the package's errors, compiled against its public
// API as a user's module compiles them. Swift 6.3.1 crashes (signal 11, in
// MandatoryAllocBoxToStack) compiling a non-exhaustive `catch` in a function that
// throws untyped around a call declared with typed throws, a shape of every-day
// code: so no public API declares typed throws (the package's own code uses the
// typed forms, package-internal), and this file stops the build the day one does.
import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import SharedDefaults
import Testing

@Suite("Import visibility: catching the package's errors as users write it")
struct CatchShapes {
    static func isRefusal(_ error: any Error) -> Bool { "\(error)".contains("group") }

    /// Each public throwing call, inside `do { x = try ... } catch where ... { }`.
    static func everyShape(_ device: SimulatedDevice, _ target: SimulatedTarget) throws -> [String] {
        var seen: [String] = []
        let resolver = device.resolver(for: target)
        var url: URL?
        do { url = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.elsewhere") } catch where isRefusal(error) { seen.append("resolver") }
        do { url = try resolver.requireApplicationContainerURL() } catch where isRefusal(error) { seen.append("application container") }
        var group: GroupIdentifier?
        do { group = try GroupIdentifier("not a group") } catch where isRefusal(error) { seen.append("group identifier") }
        var identity: Entitlements?
        do { identity = try Entitlements(applicationIdentifier: "not an identifier") } catch where "\(error)".contains("TEAMID") { seen.append("entitlements") }
        do { identity = try Entitlements.fromEnvironment([:]) } catch where isRefusal(error) { seen.append("environment") }
        var scope: IdentityScope?
        do { scope = try IdentityScope.active } catch where isRefusal(error) { seen.append("scope") }
        var current: ContainerResolver?
        do { current = try ContainerResolver.current() } catch where "\(error)".contains("identity") { seen.append("current resolver") }
        var defaults: SharedDefaults?
        do { defaults = try SharedDefaults(requiringSuiteName: "group.ai.systenics.elsewhere", resolver: resolver) } catch where isRefusal(error) { seen.append("defaults") }
        do { try defaults?.save(1, forKey: "k") } catch where isRefusal(error) { seen.append("save") }
        var inbox: ShareInbox?
        do { inbox = try ShareInbox(groupIdentifier: "group.ai.systenics.elsewhere", resolver: resolver) } catch where isRefusal(error) { seen.append("inbox") }
        var number: UInt64?
        do { number = try inbox?.enqueue(SharedItem(title: "t")) } catch where isRefusal(error) { seen.append("enqueue") }
        var made: SimulatedDevice?
        do { made = try SimulatedDevice(name: "a/b") } catch where "\(error)".contains("device name") { seen.append("device") }
        var settings: BuildSettings?
        do { settings = try BuildSettings(contentsOf: device.scratch.appendingPathComponent("none.xcconfig")) } catch where "\(error)".contains("xcconfig") { seen.append("build settings") }
        var traced: SimulatedDevice?
        do { traced = try SimulatedDevice(name: "CatchShapes", trace: .off) } catch where isRefusal(error) { seen.append("traced device") }
        do { url = try traced?.writeTrace() } catch where "\(error)".contains("records no trace") { seen.append("no trace") }
        var report: ExplorationReport?
        do { report = try SimulatedDevice.explore(schedules: 0, seed: 1) { _ in } } catch where isRefusal(error) { seen.append("explore") }
        do { report = try SimulatedDevice.explore(replaying: URL(fileURLWithPath: "/nonexistent.schedule.json")) { _ in } } catch where "\(error)".contains("cannot be read") { seen.append("schedule file") }
        do { try device.installWidget(kind: "", executable: URL(fileURLWithPath: "/bin/true"), as: target) } catch where "\(error)".contains("kind") { seen.append("widget") }
        var clock: Date?
        do { clock = try device.clock() } catch where isRefusal(error) { seen.append("clock") }
                var shared: ShareOutcome?
        do { shared = try device.share([], to: target, built: "NoSuchExtension") } catch where "\(error)".contains("NoSuchExtension") { seen.append("share") }
        _ = (url, group, identity, scope, current, number, made, settings, report, clock, shared)
        return seen
    }

    /// The lifecycle's public throwing calls, in the same shape: compiled,
    /// and run on a process launched with no target, which each refuses.
    static func lifecycleShapes(_ device: SimulatedDevice, _ process: LaunchedProcess) throws -> [String] {
        var seen: [String] = []
        let refused: (any Error) -> Bool = { "\($0)".contains("not launched as a target") }
        var state: LifecycleState?
        do { state = try device.lifecycleState(of: process) } catch where refused(error) { seen.append("state") }
        do { try device.moveToBackground(process) } catch where refused(error) { seen.append("background") }
        var suspension: SimulatedDevice.SuspensionResult?
        do { suspension = try device.suspend(process) } catch where refused(error) { seen.append("suspend") }
        do { try device.resume(process) } catch where refused(error) { seen.append("resume") }
        var report: TerminationReport?
        do { report = try device.terminate(process) } catch where refused(error) { seen.append("terminate") }
        do { report = try device.jetsam(process) } catch where refused(error) { seen.append("jetsam") }
        do { report = try device.termination(of: process, timeout: 0) } catch where refused(error) { seen.append("termination") }
        var task: BackgroundTask?
        do { task = try device.beginBackgroundTask(for: process) } catch where refused(error) { seen.append("background task") }
        _ = (state, suspension, report, task)
        return seen
    }

    @Test("the lifecycle's throwing calls compile inside a `catch where`")
    func lifecycleCatchWhere() throws {
        try SimulatedDevice.with { device in
            let process = try device.launch(URL(fileURLWithPath: "/bin/sleep"), ["30"], as: nil)
            defer { process.kill() }
            #expect(try Self.lifecycleShapes(device, process).count == 8)
        }
    }

    @Test("every public throwing call compiles inside a `catch where` and its refusal is caught there")
    func catchWhere() throws {
        try SimulatedDevice.with { device in
            let app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes",
                                          applicationGroups: ["group.ai.systenics.notes"])
            let seen = try Self.everyShape(device, app)
            #expect(seen == ["resolver", "group identifier", "entitlements", "current resolver", "defaults", "inbox", "device", "build settings", "no trace", "schedule file", "widget", "share"])
        }
    }
}
