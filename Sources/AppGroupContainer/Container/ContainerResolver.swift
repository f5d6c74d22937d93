import Foundation
import AppGroupSystem

/// Maps App Group identifiers to directories, as
/// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` does on iOS.
///
/// Layout (the readable form macOS uses under its `~/Library/Group Containers`;
/// this emulator's default root is elsewhere, see ``defaultRoot(environment:)``):
///
///     <root>/<group-id>/
///         Library/Caches/
///         Library/Preferences/
///
/// Directories are created 0700 on first use, whatever the umask; two processes
/// resolving the same new group at once both succeed and get the same directory.
/// Symbolic links planted where a container directory belongs are refused.
///
/// Ownership: the root and every directory the resolver makes or finds (the
/// group's directory, `Library`, `Library/Caches`, `Library/Preferences`, and
/// `Applications/<bundle id>` with the same) must belong to the process's
/// effective user. One owned by another user is refused with
/// ``AppGroupError/untrustedDirectory(path:owner:mode:user:)``, naming the path,
/// owner and mode; one of the process's own that group or others may write is
/// repaired (chmod 0700) and reported through `Diagnostics.warn(_:)`.
///
/// Resolving a container makes its root's coordination tree (`.coordination`),
/// which marks the root for every process that knows only a path: the
/// coordinator's lock files live there. The stores built on a resolver hand its
/// root to every save (`ContainerRoot`), so that a symbolic link planted at any
/// directory between the root and a file is refused.
public struct ContainerResolver: Sendable {
    /// The directory that holds every group's container.
    public let root: URL
    /// The identity whose entitlements decide what resolves.
    public let entitlements: Entitlements

    /// The environment variable that chooses the root when none is passed.
    package static let rootEnvironmentKey = "APP_GROUP_CONTAINERS_ROOT"

    /// - Parameters:
    ///   - root: the container root; when nil, `APP_GROUP_CONTAINERS_ROOT`, else
    ///     ``defaultRoot(environment:)``.
    ///   - entitlements: the identity of the calling (simulated) process.
    ///   - environment: where `APP_GROUP_CONTAINERS_ROOT` and `HOME` are read
    ///     when `root` is nil (the process's own by default).
    public init(root: URL? = nil, entitlements: Entitlements, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.root = (root ?? Self.root(environment: environment)).standardizedFileURL
        self.entitlements = entitlements
    }

    /// A resolver for the calling code's identity (``Entitlements/current()``): the
    /// active ``IdentityScope``'s identity and root when there is one, else the
    /// process's environment. A `root` given wins over both.
    /// - Throws: ``AppGroupError/identityScopeConflict(_:)`` where the calling code
    ///   could be another scope's (see ``IdentityScope/active``);
    ///   ``AppGroupError/missingIdentity(hint:)`` without any identity.
    public static func current(root: URL? = nil) throws -> ContainerResolver {
        try resolvingCurrent(root: root)
    }

    /// ``current(root:)``, typed: for the package's own code.
    package static func resolvingCurrent(root: URL? = nil) throws(AppGroupError) -> ContainerResolver {
        if let scope = try IdentityScope.activeScope() {
            return ContainerResolver(root: root ?? scope.root, entitlements: scope.entitlements)
        }
        return ContainerResolver(root: root, entitlements: try Entitlements.currentIdentity())
    }

    /// The root named by `APP_GROUP_CONTAINERS_ROOT`, else ``defaultRoot(environment:)``.
    package static func root(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = environment[rootEnvironmentKey], !path.isEmpty { return URL(fileURLWithPath: path, isDirectory: true) }
        return defaultRoot(environment: environment)
    }

    /// The per-user default. On Apple's platforms
    /// `~/Library/Application Support/AppGroupContainers`: a folder of the
    /// emulator's own, never the system's `~/Library/Group Containers`, so that
    /// nothing reaches the real group containers (or, through `<root>/Keychains`,
    /// anything beside them) unless a caller names that root itself. Elsewhere
    /// `$XDG_DATA_HOME/AppGroupContainers`, else `~/.local/share/AppGroupContainers`.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        // NSHomeDirectory, not homeDirectoryForCurrentUser: the latter does not exist on iOS.
        defaultRoot(environment: environment, platform: .current,
                    homeDirectory: URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true))
    }

    /// The platforms whose default roots differ.
    package enum Platform: Sendable {
        case darwin, other

        /// The platform this code was compiled for.
        package static var current: Platform {
            #if canImport(Darwin)
            .darwin
            #else
            .other
            #endif
        }
    }

    /// ``defaultRoot(environment:)`` for `platform`, a pure function of its
    /// arguments so that the Darwin branch is tested on Linux too.
    /// - Parameter homeDirectory: the home used when `HOME` is unset.
    package static func defaultRoot(environment: [String: String], platform: Platform, homeDirectory: URL) -> URL {
        let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) } ?? homeDirectory
        switch platform {
        case .darwin:
            // Not XDG_DATA_HOME: macOS does not use it, and a value inherited from
            // another tool must not move the emulator's data.
            return home.appendingPathComponent("Library/Application Support/AppGroupContainers", isDirectory: true)
        case .other:
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("AppGroupContainers", isDirectory: true)
            }
            return home.appendingPathComponent(".local/share/AppGroupContainers", isDirectory: true)
        }
    }

    /// The group's container, created on first use; nil when the identity is not
    /// entitled to the group (iOS semantics) or the identifier is invalid.
    ///
    /// Unlike iOS, the reason is not swallowed: it is written to standard error, and
    /// ``requireContainerURL(forSecurityApplicationGroupIdentifier:)`` throws it.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        do {
            return try requireContainerURL(forSecurityApplicationGroupIdentifier: groupIdentifier)
        } catch {
            Diagnostics.warn("containerURL(forSecurityApplicationGroupIdentifier: \"\(groupIdentifier)\") returned nil: \(error)",
                             kind: Diagnostics.kind(of: error))
            return nil
        }
    }

    /// The group's container, created on first use.
    /// - Throws: ``AppGroupError/notEntitled(group:bundleIdentifier:heldGroups:)`` naming the
    ///   group, the bundle id, the groups held and the fix;
    ///   ``AppGroupError/invalidGroupIdentifier(_:rule:)``;
    ///   ``AppGroupError/untrustedDirectory(path:owner:mode:user:)`` when a directory
    ///   of the container belongs to another user; file-system errors.
    public func requireContainerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) throws -> URL {
        try containerURL(ofGroup: groupIdentifier)
    }

    /// ``requireContainerURL(forSecurityApplicationGroupIdentifier:)``, typed: for
    /// the package's own code.
    package func containerURL(ofGroup groupIdentifier: String) throws(AppGroupError) -> URL {
        let group = try GroupIdentifier.validated(groupIdentifier)
        try checkEntitlement(group)
        return try createContainer(for: group)
    }

    /// Throws unless the identity holds `group`.
    package func checkEntitlement(_ group: GroupIdentifier) throws(AppGroupError) {
        guard entitlements.isEntitled(to: group) else {
            throw .notEntitled(group: group.rawValue, bundleIdentifier: entitlements.bundleIdentifier,
                                            heldGroups: entitlements.applicationGroups.map(\.rawValue))
        }
    }

    /// Where `group`'s container is (or would be), without checking entitlements or
    /// touching the disk. A valid identifier is one path component, so this stays in the root.
    package func containerLocation(for group: GroupIdentifier) -> URL {
        root.appendingPathComponent(group.rawValue, isDirectory: true)
    }

    /// The subdirectories made in every container.
    package static let standardSubdirectories = ["Library", "Library/Caches", "Library/Preferences"]

    func createContainer(for group: GroupIdentifier) throws(AppGroupError) -> URL {
        try Self.makeRoot(root)
        // Before any container exists: a process that finds this root only by a
        // path must find the same coordination tree as this one.
        try CoordinationTree.prepare(root: root.path)
        let container = containerLocation(for: group)
        try TrustedDirectory.make(container.path)
        for sub in Self.standardSubdirectories {
            try TrustedDirectory.make(container.appendingPathComponent(sub, isDirectory: true).path)
        }
        return container
    }

    /// Creates the root and any missing parents. Existing parents are left as they
    /// are (they may be shared, like /tmp); the root itself must be a directory of
    /// the process's user that no one else may write (see ``TrustedDirectory``).
    static func makeRoot(_ root: URL) throws(AppGroupError) {
        if let st = try fromSystem(SystemCalls.stat(root.path)) {
            guard SystemCalls.isDirectory(st) else {
                throw .invalidRoot(path: root.path, problem: "it is a \(SystemCalls.fileKind(st.st_mode)), not a directory")
            }
            try TrustedDirectory.check(st, root.path)
            return
        }
        var path = ""
        for component in root.pathComponents where component != "/" {
            path += "/" + component
            if try fromSystem(SystemCalls.stat(path)) == nil {
                do { try SystemCalls.makeDirectory(path) } catch {
                    throw .invalidRoot(path: root.path, problem: AppGroupError(error).description)
                }
            }
        }
    }
}
