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
        var shared: ShareOutcome?
        do { shared = try device.share([], to: target, built: "NoSuchExtension") } catch where "\(error)".contains("NoSuchExtension") { seen.append("share") }
        _ = (url, group, identity, scope, current, number, shared)
        return seen
    }

    @Test("every public throwing call compiles inside a `catch where` and its refusal is caught there")
    func catchWhere() throws {
        try SimulatedDevice.with { device in
            let app = try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes",
                                          applicationGroups: ["group.ai.systenics.notes"])
            let seen = try Self.everyShape(device, app)
            #expect(seen == ["resolver", "group identifier", "entitlements", "current resolver", "defaults", "inbox", "share"])
        }
    }
}
