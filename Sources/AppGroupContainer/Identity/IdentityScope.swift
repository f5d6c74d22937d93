import Foundation

/// An identity (and optionally a container root) bound to a stretch of code, so
/// that one test process can act as several targets in turn: "as the share
/// extension, then as the app".
///
/// Inside ``run(_:)``, every API that asks "who is calling?" answers with this
/// scope instead of the process environment:
/// `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`,
/// ``ContainerResolver/current(root:)`` and so the defaults suites,
/// ``Entitlements/current()``, and the keychain's `SecItem...` functions.
///
/// The model:
/// - **What is bound**: the entitlements, the container root (nil keeps
///   `APP_GROUP_CONTAINERS_ROOT` or the default), extra environment variables
///   (``environment``, for example the keychain device), and typed values the
///   package's modules attach (the keychain binds its `Keychain` there).
/// - **Task-local, and process-wide for queues and threads**: the scope is bound
///   to the task running ``run(_:)`` (child tasks and `Task { }` inherit it), and
///   also held in one process-wide slot, because work the code under test hops to
///   a `DispatchQueue`, an `OperationQueue` or a `Thread` inherits no task-local
///   value. Code that runs outside any Swift task (such hopped work) sees the
///   process-wide scope; code in a task sees only its own task's scope, so another
///   test's task outside every scope still sees none (and `Task.detached` inside
///   a scope sees none either).
/// - **One at a time**: since there is one slot, a second scope entered on another
///   task or thread waits (blocking its thread) until the first ends. Concurrent tests therefore
///   serialise their scopes instead of seeing each other's identity. Use scopes
///   for "as the extension, then as the app"; real processes remain the way to
///   test real concurrency.
/// - **Nesting**: a scope entered inside another on the same task (or the same
///   thread for synchronous code) replaces it until the inner one ends. A scope
///   entered from work hopped to another thread inside a scope is not nested: it
///   waits for the outer scope to end, so do not wait for such work inside the
///   outer scope.
/// - **The asynchronous form** (``run(isolation:_:)``) binds the task only, never
///   the slot, and never waits: see there why.
/// - **Work that outlives the scope** (a queue item still running after `run`
///   returned) sees whatever is bound then: nothing (the environment again) or a
///   later scope. Wait for the work you start before the scope ends.
public struct IdentityScope: Sendable, CustomStringConvertible {
    /// The identity bound.
    public let entitlements: Entitlements
    /// The container root bound; nil keeps the environment's (or the default).
    public let root: URL?
    /// Environment variables seen by APIs that read the environment inside the
    /// scope (on top of the process's own and the identity's, see ``effectiveEnvironment``).
    public let environment: [String: String]
    /// Typed values attached by the package's modules, by key.
    package let values: [String: any Sendable]

    /// - Parameters:
    ///   - entitlements: who the code inside the scope runs as.
    ///   - root: the container root (a simulated device's); nil for the environment's.
    ///   - environment: extra variables, for example `APP_GROUP_KEYCHAIN_DEVICE`.
    public init(entitlements: Entitlements, root: URL? = nil, environment: [String: String] = [:]) {
        self.init(entitlements: entitlements, root: root, environment: environment, values: [:])
    }

    package init(entitlements: Entitlements, root: URL?, environment: [String: String], values: [String: any Sendable]) {
        self.entitlements = entitlements
        self.root = root?.standardizedFileURL
        self.environment = environment
        self.values = values
    }

    /// This scope with `value` attached under `key`.
    package func attaching(_ value: any Sendable, forKey key: String) -> IdentityScope {
        var values = values
        values[key] = value
        return IdentityScope(entitlements: entitlements, root: root, environment: environment, values: values)
    }

    /// The process environment as the scope shows it: the process's own, then the
    /// identity's variables, the root (`APP_GROUP_CONTAINERS_ROOT`), then ``environment``.
    public var effectiveEnvironment: [String: String] {
        var merged = ProcessInfo.processInfo.environment.merging(entitlements.environment) { $1 }
        if let root { merged[ContainerResolver.rootEnvironmentKey] = root.path }
        return merged.merging(environment) { $1 }
    }

    public var description: String {
        "IdentityScope(\(entitlements.applicationIdentifier)" + (root.map { " on \($0.path)" } ?? "") + ")"
    }

    // MARK: The binding

    /// The scope of the calling code: the task's own; outside any Swift task (work
    /// hopped to a queue or a thread), the process-wide one; else nil.
    public static var active: IdentityScope? {
        if let taskScope { return taskScope }
        if withUnsafeCurrentTask(body: { $0 != nil }) { return nil }
        return ScopeGate.shared.current
    }

    @TaskLocal static var taskScope: IdentityScope?
    /// The token of the scope tree the current task holds, to tell nesting from a second scope.
    @TaskLocal static var heldToken: UInt64?

    /// Runs `body` with this scope active (see the type's discussion for the model).
    /// Waits, blocking the thread, while another task or thread holds a scope.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        let gate = ScopeGate.shared
        if let token = Self.heldToken, gate.isHeld(by: token) {
            gate.push(self)
            defer { gate.pop() }
            return try Self.$taskScope.withValue(self, operation: body)
        }
        let token = gate.acquire(self)
        defer { gate.release() }
        return try Self.$heldToken.withValue(token) { try Self.$taskScope.withValue(self, operation: body) }
    }

    /// Runs `body` with this scope bound to the current task and its child tasks
    /// (`async let`, task groups, `Task { }`), never process-wide: work `body` hops
    /// to a queue or a thread does not see it (use the synchronous form around such
    /// code). It never waits for other scopes. Why: a scope held process-wide across
    /// an `await` would make synchronous scopes on other tasks block the threads of
    /// Swift's cooperative pool until it ends, while its own continuation needs one
    /// of those threads to resume; with a pool as small as the machine's cores, that
    /// deadlocks.
    public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        try await Self.$taskScope.withValue(self, operation: body)
    }
}

/// The process-wide slot: who holds it (a token per outermost scope) and the
/// stack of nested scopes, guarded by an `NSCondition`.
final class ScopeGate: @unchecked Sendable {
    static let shared = ScopeGate()

    private let condition = NSCondition()
    private var holder: UInt64?
    private var stack: [IdentityScope] = []
    private var nextToken: UInt64 = 1

    var current: IdentityScope? {
        condition.lock()
        defer { condition.unlock() }
        return stack.last
    }

    func isHeld(by token: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return holder == token
    }

    /// Takes the slot when free; nil when another holds it.
    private func tryTake(_ scope: IdentityScope) -> UInt64? {
        guard holder == nil else { return nil }
        let token = nextToken
        nextToken += 1
        holder = token
        stack = [scope]
        return token
    }

    func acquire(_ scope: IdentityScope) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let token = tryTake(scope) { return token }
            condition.wait()
        }
    }

    func release() {
        condition.lock()
        holder = nil
        stack = []
        condition.broadcast()
        condition.unlock()
    }

    func push(_ scope: IdentityScope) {
        condition.lock()
        stack.append(scope)
        condition.unlock()
    }

    func pop() {
        condition.lock()
        _ = stack.popLast()
        condition.unlock()
    }
}
