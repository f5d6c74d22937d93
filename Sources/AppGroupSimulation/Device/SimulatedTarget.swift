import AppGroupContainer
import Foundation

/// One signed target of an app: the app itself, a share extension, a widget...
/// each with its own bundle identifier and entitlements (extensions do not
/// inherit the app's).
public struct SimulatedTarget: Sendable, Hashable {
    /// What kind of target it is: it chooses the bundle's type and, for an
    /// extension, its `NSExtensionPointIdentifier` (see ``infoDictionary``).
    public enum Kind: String, Sendable, Hashable {
        case app, shareExtension, widget, notificationExtension, other
    }

    /// A short name for reports, e.g. `NotesShare`.
    public let name: String
    /// The kind of target.
    public let kind: Kind
    /// Its identity: application identifier, App Groups, keychain access groups.
    public let entitlements: Entitlements
    /// Its Info.plist as built from one given (XML, see SimulatedTarget+Bundle.swift);
    /// nil: built from the kind alone when needed.
    var builtInfoPlist: Data? = nil

    /// The bundle identifier, e.g. `ai.systenics.notes.share`.
    public var bundleIdentifier: String { entitlements.bundleIdentifier }

    /// A target with an identity built elsewhere.
    public init(name: String, kind: Kind, entitlements: Entitlements) {
        self.name = name
        self.kind = kind
        self.entitlements = entitlements
    }

    /// A target built in code.
    /// - Throws: ``SimulationError/container(_:)`` for an invalid Team ID, bundle id or group.
    public init(name: String, kind: Kind, teamIdentifier: String, bundleIdentifier: String,
                applicationGroups: [String] = [], keychainAccessGroups: [String] = []) throws {
        self.init(name: name, kind: kind,
                  entitlements: try SimulationError.passingUp {
                      try Entitlements(teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier,
                                       applicationGroups: applicationGroups, keychainAccessGroups: keychainAccessGroups)
                  })
    }
}

// MARK: - Running code as the target

extension SimulatedTarget {
    /// Runs `body` as this target on `device`, in one test process: inside it,
    /// `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`,
    /// the defaults suites (`SharedDefaults`, which resolve through
    /// `ContainerResolver.current()`), `Entitlements.current()` and the keychain's
    /// `SecItem...` functions answer as this target on the device, in this task and
    /// the tasks it starts, and in work `body` hops to a `DispatchQueue`, an
    /// `OperationQueue` or a `Thread` while no other target's scope is live.
    ///
    /// ```swift
    /// let shared = try notes.shareExtension.run(on: device) { try saveDraft() }
    /// try notes.app.run(on: device) { #expect(try loadDrafts() == [shared]) }
    /// ```
    ///
    /// The model (`IdentityScope`, and <doc:IdentityScopes>): a scope's identity never
    /// reaches another scope's work. Runs on other tasks or threads (parallel tests)
    /// run beside this one and never wait; while one of another target is live, work
    /// hopped to a queue or a thread could be either's, so it is refused
    /// (`AppGroupError.identityScopeConflict`: containerURL nil, `UserDefaults` that
    /// refuse every call, `errSecNotAvailable`), never answered as the wrong target.
    /// Carry the scope to such work explicitly (`let scope = try IdentityScope.active`,
    /// then `IdentityScope.run(scope) { ... }` in the work). A run nested on the same
    /// task replaces the outer target until it ends. A task started inside that runs
    /// after `body` returns is refused: wait for it inside. Real processes
    /// (``SimulatedDevice/spawn(_:_:as:environment:timeout:)``) remain the way to test
    /// real concurrency between targets.
    /// - Parameters:
    ///   - device: the device whose root the code sees.
    ///   - environment: extra variables the scope shows, for example
    ///     `APP_GROUP_KEYCHAIN_DEVICE` to choose the keychain device (default `default`).
    ///   - body: the code to run as this target.
    public func run<T>(on device: SimulatedDevice, environment: [String: String] = [:], _ body: () throws -> T) rethrows -> T {
        try device.scope(for: self, environment: environment).run(body)
    }

    /// The asynchronous form of ``run(on:environment:_:)``: binds the target to the
    /// current task and the tasks it starts, across its `await`s; work hopped to a
    /// queue or a thread is answered as for the synchronous form. It never waits.
    public func run<T>(on device: SimulatedDevice, environment: [String: String] = [:],
                       isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        try await device.scope(for: self, environment: environment).run(isolation: isolation, body)
    }
}
