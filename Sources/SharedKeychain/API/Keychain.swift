import AppGroupContainer
import Foundation

/// The keychain as one simulated process sees it: a device's items, filtered by the
/// process's identity (its entitlements), under one platform's rules.
///
/// Two layers share one engine:
/// - the Security vocabulary: `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate`,
///   `SecItemDelete` with `kSec...` keys, returning `OSStatus` (on Linux; they use
///   ``current()``), and the same dictionaries through ``add(_:)``,
///   ``copyMatching(_:)``, ``update(_:with:)`` and ``delete(_:)->Int``, which throw a
///   ``KeychainError`` carrying the status and the reason;
/// - a typed layer: ``GenericPassword`` and ``InternetPassword`` keys with
///   ``add(_:for:accessibility:)``, ``read(_:)``, ``save(_:for:accessibility:)``,
///   ``delete(_:)->Bool`` and ``move(_:toAccessGroup:accessibility:)``.
///
/// Every call reads the files of the access groups it searches (each cached by file
/// identity): the named group, or every group the identity holds; every change is a
/// read-modify-write under the device's keychain write lock, saved atomically, so
/// processes sharing a device never lose each other's items.
public struct Keychain: Sendable, Hashable, CustomStringConvertible {
    /// The simulated device whose keychain this is.
    public let device: KeychainDevice
    /// The calling process's identity.
    public let identity: Entitlements
    /// The platform rules applied.
    public var behavior: Behavior
    /// Seconds to wait for another process's write before failing with `errSecIO`.
    public var coordinationTimeout: TimeInterval = 30

    /// - Parameters:
    ///   - device: the simulated device (its root and name).
    ///   - identity: the entitlements of the process making the calls.
    ///   - behavior: ``Behavior/iOS`` unless given.
    public init(device: KeychainDevice, identity: Entitlements, behavior: Behavior = .iOS) {
        self.device = device
        self.identity = identity
        self.behavior = behavior
    }

    /// The keychain of the process's environment: identity from
    /// `Entitlements.fromEnvironment`, root from `APP_GROUP_CONTAINERS_ROOT`, device from
    /// `APP_GROUP_KEYCHAIN_DEVICE`, behavior from `APP_GROUP_KEYCHAIN_BEHAVIOR`.
    /// - Throws: ``KeychainError/notAvailable(problem:)`` when no identity is set or a
    ///   variable is malformed, saying which.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Keychain {
        let identity: Entitlements
        do {
            guard let found = try Entitlements.fromEnvironment(environment) else {
                throw KeychainError.notAvailable(problem: "the process has no identity: set \(Entitlements.EnvironmentKey.applicationIdentifier) (and \(Entitlements.EnvironmentKey.keychainAccessGroups), \(Entitlements.EnvironmentKey.applicationGroups)), or run the code in a scope (SimulatedTarget.run(on:), Keychain.withCurrent)")
            }
            identity = found
        } catch let error as AppGroupError {
            throw KeychainError.notAvailable(problem: "\(error)")
        }
        let name = environment[Behavior.environmentKey] ?? ""
        guard let behavior = Behavior(named: name) else {
            throw KeychainError.notAvailable(problem: "\(Behavior.environmentKey)=\"\(name.prefix(40))\" is not iOS, iOS12 or macOS")
        }
        return Keychain(device: try KeychainDevice.fromEnvironment(environment), identity: identity, behavior: behavior)
    }

    /// The key under which ``withCurrent(_:_:)`` attaches its keychain to the scope.
    static let scopeKey = "SharedKeychain.Keychain"

    /// The keychain the global `SecItem...` functions use: the one bound by
    /// ``withCurrent(_:_:)``; else, inside an `IdentityScope` (for example
    /// `SimulatedTarget.run(on:)`), the scope's identity on the device its
    /// environment names (its root, `APP_GROUP_KEYCHAIN_DEVICE`); else ``fromEnvironment(_:)``.
    /// - Throws: ``KeychainError/notAvailable(problem:)`` (`errSecNotAvailable` from
    ///   `SecItem...`) without an identity, and where the calling code could be another
    ///   scope's: the problem is the `IdentityScopeConflict`, naming both scopes.
    public static func current() throws -> Keychain {
        let active: IdentityScope?
        do {
            active = try IdentityScope.active
        } catch {
            throw KeychainError.notAvailable(problem: "\(error)")
        }
        guard let scope = active else { return try fromEnvironment() }
        if let bound = scope.values[scopeKey] as? Keychain { return bound }
        return try fromEnvironment(scope.effectiveEnvironment)
    }

    /// Runs `body` with `keychain` as ``current()``, so that code written against the
    /// global `SecItem...` functions runs as that identity (the package's tests run
    /// code written for the platform's keychain this way).
    ///
    /// The binding is an `IdentityScope` (identity, the device's root, this keychain),
    /// and every other API of the package answers as the same identity. Work `body`
    /// hops to a `DispatchQueue`, an `OperationQueue` or a `Thread` sees it while no
    /// other target's scope is live in the process; while one is (parallel tests),
    /// such work is refused (`errSecNotAvailable`, naming both) rather than answered
    /// as either: carry the scope to it with `IdentityScope.run(_:_:)` (see `IdentityScope`).
    /// It never waits for other scopes.
    public static func withCurrent<T>(_ keychain: Keychain, _ body: () throws -> T) rethrows -> T {
        try keychain.scope.run(body)
    }

    /// The asynchronous form of ``withCurrent(_:_:)``: binds `keychain` to the current
    /// task and the tasks it starts; hopped work is answered as for the synchronous
    /// form (see `IdentityScope`). It never waits.
    public static func withCurrent<T>(_ keychain: Keychain, isolation: isolated (any Actor)? = #isolation,
                                      _ body: () async throws -> T) async rethrows -> T {
        try await keychain.scope.run(isolation: isolation, body)
    }

    /// The scope that binds this keychain: its identity, its device's root and name.
    var scope: IdentityScope {
        IdentityScope(entitlements: identity, root: device.root,
                      environment: [KeychainDevice.environmentKey: device.name, Behavior.environmentKey: behavior.description])
            .attaching(self, forKey: Self.scopeKey)
    }

    /// The identity's access groups in the order the system builds them:
    /// keychain-access-groups, the application identifier, then (iOS) application groups.
    public var accessGroups: [String] { AccessGroups(identity: identity, behavior: behavior).ordered }

    /// Where an add without `kSecAttrAccessGroup` puts its item: the first of ``accessGroups``.
    public var defaultAccessGroup: String { accessGroups.first ?? identity.applicationIdentifier }

    public var description: String {
        "Keychain(\(identity.applicationIdentifier) on \(device), \(behavior) rules)"
    }

    // MARK: The dictionary layer

    /// `SecItemAdd`: adds the item `attributes` describe. Returns what the attributes
    /// ask for with `kSecReturnData` / `kSecReturnAttributes`, else nil.
    @discardableResult
    public func add(_ attributes: [String: Any]) throws -> Any? {
        let query = try ParsedQuery(attributes, for: .add)
        let item = try modify(try groups.parts(for: query, adding: true)) { engine, content in try engine.add(query, to: &content) }
        var single = query
        single.limit = nil
        return KeychainEngine.result(for: [item], query: single)
    }

    /// `SecItemCopyMatching`: the data, attributes, or both, of the first match (or of
    /// up to `kSecMatchLimit` matches, as an array).
    public func copyMatching(_ query: [String: Any]) throws -> Any? {
        let parsed = try ParsedQuery(query, for: .copyMatching)
        let engine = try makeEngine()
        let parts = try engine.groups.parts(for: parsed)
        var content = try device.loadItems(parts)
        if (parsed.returnPersistentRef || parsed.persistentRef != nil) && content.items.contains(where: { $0.persistentID == nil }) {
            // A file from before references: give its items identifiers (a write) first.
            content = try modify(parts) { _, content in
                KeychainEngine.assignMissingIdentifiers(in: &content)
                return content
            }
        }
        let indices = try engine.matches(parsed, in: content)
        let items = try authorize(parsed, indices.map { content.items[$0] }, engine: engine, operation: .copyMatching)
        return KeychainEngine.result(for: items, query: parsed)
    }

    /// `SecItemUpdate`: applies `attributes` (values, attributes, accessibility, sync
    /// flag; never the access group) to every item `query` matches.
    public func update(_ query: [String: Any], with attributes: [String: Any]) throws {
        let parsed = try ParsedQuery(query, for: .update)
        let changes = try ParsedQuery(attributes, for: .updateAttributes, itemClass: parsed.itemClass)
        try modify(try groups.parts(for: parsed)) { engine, content in
            _ = try authorize(parsed, try engine.matches(parsed, in: content).map { content.items[$0] }, engine: engine, operation: .update)
            try engine.update(parsed, with: changes, in: &content)
        }
    }

    /// `SecItemDelete`: removes every item `query` matches; returns how many.
    @discardableResult
    public func delete(_ query: [String: Any]) throws -> Int {
        let parsed = try ParsedQuery(query, for: .delete)
        return try modify(try groups.parts(for: parsed)) { engine, content in try engine.delete(parsed, from: &content) }
    }

    // MARK: Plumbing

    var groups: AccessGroups { AccessGroups(identity: identity, behavior: behavior) }

    func makeEngine() throws -> KeychainEngine {
        KeychainEngine(groups: groups, state: try device.state(), now: Date(), sensor: { [device] in try device.biometry() })
    }

    /// Runs `body` on the items of `parts` under the device's keychain write lock;
    /// every item it leaves must belong to one of them.
    func modify<T>(_ parts: [KeychainPart], _ body: (KeychainEngine, inout KeychainFileContent) throws -> T) throws -> T {
        try device.makeDirectories(for: parts)
        return try device.modifyItems({ parts }, timeout: coordinationTimeout) { content in
            KeychainEngine.assignMissingIdentifiers(in: &content)
            return try body(try makeEngine(), &content)
        }
    }

    /// Runs a `SecItem...` call as Apple's functions do: an `OSStatus`, the result in
    /// `result`. Failures other than "not found" and "duplicate" (ordinary control
    /// flow) are explained on standard error, where Apple's console would log them.
    package static func runReportingStatus(_ function: String, _ result: UnsafeMutablePointer<AnyObject?>?,
                                   _ body: (Keychain) throws -> AnyObject?) -> Int32 {
        let span = Tracing.begin(.keychain)
        let status = runUntraced(function, result, body)
        span?.end(function, [("status", "\(status)"), ("message", SecStatus.message(status).map { "\($0)" } ?? "")]
                  + ((try? current()).map { [("keychain", $0.device.writeLockURL.path)] } ?? []))
        return status
    }

    private static func runUntraced(_ function: String, _ result: UnsafeMutablePointer<AnyObject?>?,
                                    _ body: (Keychain) throws -> AnyObject?) -> Int32 {
        do {
            let value = try body(try current())
            if let result { result.pointee = value }
            return SecStatus.success
        } catch let error as KeychainError {
            if error.status != SecStatus.itemNotFound && error.status != SecStatus.duplicateItem
                || { if case .missingEntitlement = error { return true } else { return false } }() {
                Diagnostics.warn("SharedKeychain \(function) returned \(error.status): \(error.description)")
            }
            return error.status
        } catch {
            Diagnostics.warn("SharedKeychain \(function): \(error)")
            return SecStatus.param
        }
    }

    /// A `CFDictionary` (`NSDictionary`) as `[String: Any]`; -50 for a non-string key.
    package static func dictionary(_ dictionary: NSDictionary) throws -> [String: Any] {
        var out: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = key as? String else {
                throw KeychainError.invalidParameter(operation: "SecItem", problem: "every key must be a kSec... string constant, found a \(type(of: key))")
            }
            out[key] = value
        }
        return out
    }
}
