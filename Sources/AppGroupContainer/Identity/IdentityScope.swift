import Foundation

/// An identity (and optionally a container root) bound to a stretch of code, so
/// that one test process can act as several targets in turn: "as the share
/// extension, then as the app".
///
/// Inside ``run(_:)`` (or ``run(isolation:_:)``), every API that asks "who is
/// calling?" answers with this scope instead of the process environment:
/// `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`,
/// ``ContainerResolver/current(root:)`` and so the defaults suites,
/// ``Entitlements/current()``, and the keychain's `SecItem...` functions.
///
/// The model. The rule it keeps: a scope's identity never reaches another scope's
/// work; where the package cannot tell whose work is asking, it refuses
/// (``AppGroupError/identityScopeConflict(_:)``) rather than answer as the wrong target.
/// - **What is bound**: the entitlements, the container root (nil keeps
///   `APP_GROUP_CONTAINERS_ROOT` or the default), extra environment variables
///   (its `environment`, for example the keychain device), and typed values the
///   package's modules attach (the keychain binds its `Keychain` there).
/// - **The task, and the tasks it starts**: both forms bind the scope to the task
///   running `run` (outside any task, to the thread), and child tasks and
///   `Task { }` started inside inherit it while it lasts. Code in a task sees only
///   its own task's scope: another test's task outside every scope sees none, and so
///   does `Task.detached`.
/// - **Work hopped to a queue or a thread** (`DispatchQueue`, `OperationQueue`,
///   `Thread`) inherits no task-local value, so it is answered from the scopes live
///   in the process: the one live scope when all live scopes are equal (one target
///   on one device: it must be its own); the environment when none is live; and,
///   when different scopes are live (parallel tests each in their own), a refusal:
///   the work may be any one's. Carry the scope to such work explicitly: capture
///   ``active`` where the work starts and run the work in it with
///   ``run(_:_:)``. The package's own callbacks (observers, file presenters,
///   `LAContext` replies) carry the identity that registered them this way.
/// - **Never waits**: a scope entered on another task or thread runs beside this one
///   (a scope that waited would block a thread of Swift's cooperative pool, as wide
///   as the machine's cores, while the scope it waits for may need one to finish).
/// - **Nesting**: a scope entered on the task or thread that runs another replaces
///   it until the inner one ends, for hopped work too. A task that inherited a scope
///   and enters another (a `Task { }` started inside) is not nested: its scope runs
///   beside the first and changes nothing the first one's work sees.
/// - **Work that outlives the scope**: a task that inherited a scope which has ended
///   is refused; hopped work still running after `run` returned is answered from
///   whatever scopes are live then. Wait for the work you start before the scope ends.
/// - **What cannot be told apart**: work that code outside every scope hops to a
///   queue, while exactly one scope is live elsewhere, is answered as that scope;
///   run such code in `IdentityScope.run(nil) { }` to keep it the environment's.
public struct IdentityScope: Sendable, Hashable, CustomStringConvertible {
    /// The identity bound.
    public let entitlements: Entitlements
    /// The container root bound; nil keeps the environment's (or the default).
    public let root: URL?
    /// Environment variables seen by APIs that read the environment inside the
    /// scope (on top of the process's own and the identity's, see `effectiveEnvironment`).
    package let environment: [String: String]
    /// Typed values attached by the package's modules, by key (hashable, so that two
    /// scopes that answer alike compare equal).
    package let values: [String: any Hashable & Sendable]

    /// - Parameters:
    ///   - entitlements: who the code inside the scope runs as.
    ///   - root: the container root (a simulated device's); nil for the environment's.
    ///   - environment: extra variables, for example `APP_GROUP_KEYCHAIN_DEVICE`.
    public init(entitlements: Entitlements, root: URL? = nil, environment: [String: String] = [:]) {
        self.init(entitlements: entitlements, root: root, environment: environment, values: [:])
    }

    package init(entitlements: Entitlements, root: URL?, environment: [String: String], values: [String: any Hashable & Sendable]) {
        self.entitlements = entitlements
        self.root = root?.standardizedFileURL
        self.environment = environment
        self.values = values
    }

    /// This scope with `value` attached under `key`.
    package func attaching(_ value: any Hashable & Sendable, forKey key: String) -> IdentityScope {
        var values = values
        values[key] = value
        return IdentityScope(entitlements: entitlements, root: root, environment: environment, values: values)
    }

    /// The process environment as the scope shows it: the process's own, then the
    /// identity's variables, the root (`APP_GROUP_CONTAINERS_ROOT`), then ``environment``.
    package var effectiveEnvironment: [String: String] {
        var merged = ProcessInfo.processInfo.environment.merging(entitlements.environment) { $1 }
        if let root { merged[ContainerResolver.rootEnvironmentKey] = root.path }
        return merged.merging(environment) { $1 }
    }

    public var description: String {
        "IdentityScope(\(entitlements.applicationIdentifier)" + (root.map { " on \($0.path)" } ?? "") + ")"
    }

    /// Equal scopes answer every "who is calling?" alike: same identity, root,
    /// environment and attached values.
    public static func == (lhs: IdentityScope, rhs: IdentityScope) -> Bool {
        lhs.entitlements == rhs.entitlements && lhs.root == rhs.root && lhs.environment == rhs.environment
            && lhs.values.count == rhs.values.count
            && lhs.values.allSatisfy { key, value in rhs.values[key].map { AnyHashable($0) == AnyHashable(value) } ?? false }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entitlements)
        hasher.combine(root)
        hasher.combine(environment)
        hasher.combine(Set(values.keys))
    }

    // MARK: The binding

    /// The scope of the calling code (see the type's discussion for the model): the
    /// task's or thread's own; for work hopped to a queue or a thread, the one live
    /// scope; nil when none applies (the process's environment answers).
    ///
    /// Capture it where work starts, to carry it to a queue or thread with ``run(_:_:)``:
    ///
    /// ```swift
    /// let scope = try IdentityScope.active
    /// DispatchQueue.global().async {
    ///     IdentityScope.run(scope) { UserDefaults.standard.set(true, forKey: "seen") }
    /// }
    /// ```
    /// - Throws: ``AppGroupError/identityScopeConflict(_:)`` when the answer could be
    ///   another scope's: hopped work while different scopes are live, or a
    ///   task that outlived the scope it inherited.
    public static var active: IdentityScope? {
        get throws { try activeScope() }
    }

    /// ``active``, typed: for the package's own code. (The public property is not
    /// declared with typed throws: Swift 6.3.1 crashes compiling a caller's
    /// non-exhaustive `catch` around a typed-throwing call, a common shape.)
    package static func activeScope() throws(AppGroupError) -> IdentityScope? {
        if let binding { return try ScopeRegistry.shared.scope(for: binding) }
        if withUnsafeCurrentTask(body: { $0 != nil }) { return nil }
        return try ScopeRegistry.shared.scopeOfHoppedWork()
    }

    /// What the current task (or, outside any task, thread) is bound to.
    @TaskLocal static var binding: ScopeBinding?

    /// Runs `body` with this scope active (see the type's discussion for the model).
    /// Never waits for other scopes.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        let frame = ScopeRegistry.shared.enter(self, within: Self.binding)
        defer { ScopeRegistry.shared.exit(frame) }
        return try Self.$binding.withValue(.frame(frame), operation: body)
    }

    /// Runs `body` with this scope bound to the current task and the tasks it starts
    /// (`async let`, task groups, `Task { }`), as the synchronous form does; work it
    /// hops to a queue or a thread is answered as the type's discussion says. Never
    /// waits for other scopes (a wait across an `await` here, or a synchronous scope
    /// waiting for this one, could starve Swift's cooperative pool).
    public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        let frame = ScopeRegistry.shared.enter(self, within: Self.binding)
        defer { ScopeRegistry.shared.exit(frame) }
        return try await Self.$binding.withValue(.frame(frame), operation: body)
    }

    /// Runs `body` as `scope`, or, for nil, explicitly as no scope (the process's
    /// environment answers, even while a scope is live elsewhere): the way to carry
    /// a scope captured with ``active`` into work on a queue or a thread.
    ///
    /// ```swift
    /// let scope = try IdentityScope.active        // in the scope, where the work starts
    /// queue.async { IdentityScope.run(scope) { try? saveDraft() } }
    /// ```
    public static func run<T>(_ scope: IdentityScope?, _ body: () throws -> T) rethrows -> T {
        guard let scope else { return try $binding.withValue(.environment, operation: body) }
        return try scope.run(body)
    }

    /// The asynchronous form of ``run(_:_:)``, for example in `Task.detached`.
    public static func run<T>(_ scope: IdentityScope?, isolation: isolated (any Actor)? = #isolation,
                              _ body: () async throws -> T) async rethrows -> T {
        guard let scope else { return try await $binding.withValue(.environment, operation: body) }
        return try await scope.run(isolation: isolation, body)
    }
}
