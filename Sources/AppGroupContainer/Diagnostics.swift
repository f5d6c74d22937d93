import Foundation
import AppGroupSystem

/// Where the package says what Apple's APIs keep quiet about (a nil container, a
/// suite refused, an inbox item set aside). Every such line goes through
/// ``handler``, which a host can replace; the library writes to standard error
/// only through the default handler.
///
/// A test that provokes a diagnostic on purpose (a target that never joined the
/// group, say) silences that kind for itself only: ``silencing(_:_:)`` (or the
/// `.silencingDiagnostics(...)` trait of AppGroupTesting) binds to the calling task
/// and the tasks it starts, and to the processes a simulated device starts from it;
/// other tests running at the same time still print theirs.
public enum Diagnostics {
    /// A receiver of the package's diagnostic lines. Lines start with the API that
    /// speaks (`containerURL(...)`, `SharedDefaults(...)`, `SharedKeychain ...`,
    /// `share inbox ...`) and carry no trailing newline.
    public typealias Handler = @Sendable (String) -> Void

    /// The kinds of diagnostic a test may silence on its own.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `containerURL(forSecurityApplicationGroupIdentifier:)` answered nil: the
        /// target has not joined the group (or the identifier is not a group's).
        case notEntitled = "not-entitled"
        /// A defaults suite of a group the target has not joined: private to it, as on iOS.
        case privateSuite = "private-suite"
        /// A wait for a lock (or a process) that is taking long.
        case lockWait = "lock-wait"
        /// Every other line.
        case other
    }

    /// Receives every diagnostic line that is not silenced, from any thread; set it
    /// to route them to your logger, or to nil to drop them. By default the
    /// standard-error handler. Reading and setting it are safe from any thread.
    public static var handler: Handler? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Runs `body` with the diagnostics of `kinds` silenced for it: for the calling
    /// task (outside a task, the thread) and the tasks it starts, and for the
    /// processes a simulated device starts from it (through `APP_GROUP_QUIET`).
    /// Nested calls add up. Other tasks, threads and tests still print theirs.
    public static func silencing<T>(_ kinds: Set<Kind>, _ body: () throws -> T) rethrows -> T {
        try $silenced.withValue(silenced.union(kinds), operation: body)
    }

    /// The asynchronous form of ``silencing(_:_:)``, across the body's `await`s.
    public static func silencing<T>(_ kinds: Set<Kind>, isolation: isolated (any Actor)? = #isolation,
                                    _ body: () async throws -> T) async rethrows -> T {
        try await $silenced.withValue(silenced.union(kinds), operation: body, isolation: isolation)
    }

    /// The kinds silenced for the calling code: ``silencing(_:_:)``'s, and those the
    /// environment names (the identity scope's, else the process's) in
    /// `APP_GROUP_QUIET`, a comma-separated list of ``Kind`` names (`1`: all).
    public static var silencedKinds: Set<Kind> {
        silenced.union(kinds(named: environment()[quietKey]))
    }

    /// The variable that silences diagnostics in a process (or an identity scope's
    /// environment): `1` for all, or kind names such as `not-entitled,private-suite`.
    package static let quietKey = "APP_GROUP_QUIET"
    /// Set by a simulated device for the processes and scopes of its targets: the
    /// target's name, which the diagnostics print.
    package static let targetNameKey = "APP_GROUP_TARGET_NAME"

    /// The default handler: one line to standard error, prefixed with who speaks
    /// (``speaker``); nothing when the environment has `APP_GROUP_QUIET=1`.
    package static let standardError: Handler = { message in
        if ProcessInfo.processInfo.environment[quietKey] == "1" { return }
        let line = "[\(speaker)] \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Who speaks, as the lines name it: the simulated target and its device when
    /// the code runs as one (in an identity scope, or in a process a device started:
    /// `NotesShareExtension (ai.systenics.notes.share) on device /tmp/Notes-RJSDfX`),
    /// else the process's name.
    package static var speaker: String {
        let environment = environment()
        guard let identifier = environment[Entitlements.EnvironmentKey.applicationIdentifier] else {
            return ProcessInfo.processInfo.processName
        }
        // TEAMID.bundle.id: the bundle identifier is what Xcode shows for the target.
        let bundle = identifier.split(separator: ".", maxSplits: 1).last.map(String.init) ?? identifier
        var who = environment[targetNameKey].map { "\($0) (\(bundle))" } ?? bundle
        if let root = environment[ContainerResolver.rootEnvironmentKey] {
            let url = URL(fileURLWithPath: root)
            // A simulated device keeps its containers in <device>/containers.
            who += url.lastPathComponent == "containers" ? " on device \(url.deletingLastPathComponent().path)" : " on root \(root)"
        }
        return who
    }

    @TaskLocal private static var silenced: Set<Kind> = []
    private static let current = Locked<Handler?>(standardError)

    /// The environment the calling code sees: its identity scope's, else the process's.
    private static func environment() -> [String: String] {
        ((try? IdentityScope.active) ?? nil)?.effectiveEnvironment ?? ProcessInfo.processInfo.environment
    }

    private static func kinds(named value: String?) -> Set<Kind> {
        guard let value, !value.isEmpty else { return [] }
        if value == "1" { return Set(Kind.allCases) }
        return Set(value.split(separator: ",").compactMap { Kind(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
    }

    /// Hands `message` to the current handler unless its kind is silenced for the
    /// calling code (called outside the lock, so a handler may itself read or
    /// replace ``handler``).
    package static func warn(_ message: String, kind: Kind = .other) {
        if silencedKinds.contains(kind) { return }
        handler?(message)
    }
}

extension Diagnostics {
    /// The kind of the line that reports `error`: ``Kind/notEntitled`` for a target
    /// outside the group, ``Kind/other`` for anything else (a broken root, a conflict).
    package static func kind(of error: any Error) -> Kind {
        if case .notEntitled? = error as? AppGroupError { return .notEntitled }
        return .other
    }
}
