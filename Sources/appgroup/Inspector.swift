import AppGroupContainer
import Foundation
import ShareInbox

/// The tool's view of a container root, and the identity it acts as.
///
/// `appgroup` is an inspector, like the simulator tools: for each command it acts
/// as an identity entitled to the one group it names, whatever identity the
/// environment describes. Everything it reads or writes still goes through the
/// library (resolver, SharedDefaults, the coordinator, ShareInbox), as an app's would.
struct Inspector {
    /// The container root: `--root`, else `APP_GROUP_CONTAINERS_ROOT`, else the per-user default.
    let root: URL

    /// The Team ID and bundle identifier of the inspector identity.
    static let teamIdentifier = "APPGROUPCL"
    static let bundleIdentifier = "appgroup.inspector"

    init(rootOption: String?) throws {
        if let rootOption {
            guard !rootOption.isEmpty else { throw CLIError.usage("--root needs a directory, not an empty string") }
            root = URL(fileURLWithPath: rootOption, isDirectory: true).standardizedFileURL
        } else {
            root = ContainerResolver.root().standardizedFileURL
        }
    }

    /// A resolver for an identity entitled to `group` alone.
    func resolver(for group: GroupIdentifier) throws -> ContainerResolver {
        let identity = try Entitlements(teamIdentifier: Self.teamIdentifier, bundleIdentifier: Self.bundleIdentifier,
                                        applicationGroups: [group.rawValue])
        return ContainerResolver(root: root, entitlements: identity)
    }

    /// Validates `raw` and finds its container, which must exist: the inspector
    /// looks at what apps made and never creates a group.
    /// - Throws: ``CLIError/usage(_:)`` for an invalid identifier, ``CLIError/notFound(_:)``
    ///   for a group with no container under the root.
    func existingGroup(_ raw: String) throws -> (group: GroupIdentifier, container: URL) {
        let group: GroupIdentifier
        do {
            group = try GroupIdentifier(raw)
        } catch {
            throw CLIError.usage("\(error)")
        }
        let container = try resolver(for: group).containerLocation(for: group)
        switch FileKind(container) {
        case .directory:
            return (group, container)
        case .symbolicLink(let target):
            throw CLIError.failed("\(container.path) is a symbolic link to \(target), not a container: it was not followed. "
                                  + "A container is a real directory under the root; remove the link")
        case .unreadable(let code):
            throw CLIError.failed("cannot look at \(container.path): \(FileKind.reason(code)). "
                                  + "Run as the user that owns the container root \(root.path), or fix its permissions")
        case .regular, .other:
            throw CLIError.failed("\(container.path) is not a directory, so it is not a container; move it away")
        case .missing:
            let present = (try? groups().map(\.rawValue)) ?? []
            let known = present.isEmpty ? "no group is present there" : "groups present: " + present.joined(separator: ", ")
            throw CLIError.notFound("unknown group \(group.rawValue): no container at \(container.path) (\(known)); "
                                    + "a container is made when an app or extension first resolves it, or check --root / APP_GROUP_CONTAINERS_ROOT")
        }
    }

    /// Validates `bundle` and finds the app's own container (`Applications/BUNDLE`),
    /// which must exist, as `simctl get_app_container BUNDLE data` finds an installed
    /// app's. Returns a resolver acting as that app (entitled to no group).
    /// - Throws: ``CLIError/usage(_:)`` for an invalid bundle identifier,
    ///   ``CLIError/notFound(_:)`` when the app has no container under the root.
    func existingApplication(_ bundle: String) throws -> (resolver: ContainerResolver, container: URL) {
        let identity: Entitlements
        do {
            identity = try Entitlements(teamIdentifier: Self.teamIdentifier, bundleIdentifier: bundle, applicationGroups: [])
        } catch {
            throw CLIError.usage("\(error)")
        }
        let resolver = ContainerResolver(root: root, entitlements: identity)
        let container = resolver.applicationContainerLocation()
        switch FileKind(container) {
        case .directory:
            return (resolver, container)
        case .symbolicLink(let target):
            throw CLIError.failed("\(container.path) is a symbolic link to \(target), not an app container: it was not followed; remove the link")
        case .unreadable(let code):
            throw CLIError.failed("cannot look at \(container.path): \(FileKind.reason(code))")
        case .regular, .other:
            throw CLIError.failed("\(container.path) is not a directory, so it is not an app container; move it away")
        case .missing:
            let applications = root.appendingPathComponent(ContainerResolver.applicationsDirectoryName, isDirectory: true)
            let present = isDirectory(applications) ? ((try? FileKind.names(in: applications)) ?? []).sorted() : []
            let known = present.isEmpty ? "no app container is present there" : "apps present: " + present.joined(separator: ", ")
            throw CLIError.notFound("unknown app \(bundle): no app container at \(container.path) (\(known)); "
                                    + "an app's own container is made when it first opens its own defaults or container")
        }
    }

    /// The groups present: directories of the root named by a valid group
    /// identifier (`Applications/`, the per-app containers, is not one), sorted.
    /// A symbolic link there is not a group (see ``linkedGroups()``).
    func groups() throws -> [GroupIdentifier] {
        try entries().compactMap { $0.1 == .directory ? $0.0 : nil }
    }

    /// Names of the root that are valid group identifiers but symbolic links: shown
    /// as links, never followed.
    func linkedGroups() throws -> [(GroupIdentifier, String)] {
        try entries().compactMap { entry in
            if case let .symbolicLink(target) = entry.1 { return (entry.0, target) }
            return nil
        }
    }

    private func entries() throws -> [(GroupIdentifier, FileKind)] {
        switch FileKind(root) {
        case .directory:
            break
        case .symbolicLink:
            // The root itself is trusted as configured (it may be a link, like /tmp on macOS).
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &directory), directory.boolValue else {
                throw CLIError.notFound("no container root at \(root.path): pass --root DIR or set APP_GROUP_CONTAINERS_ROOT to the root your app or test uses")
            }
        case .unreadable(let code):
            throw CLIError.failed("cannot read the container root \(root.path): \(FileKind.reason(code))")
        case .missing, .regular, .other:
            throw CLIError.notFound("no container root at \(root.path): pass --root DIR or set APP_GROUP_CONTAINERS_ROOT to the root your app or test uses")
        }
        return try FileKind.names(in: root).sorted().compactMap { name in
            guard let group = GroupIdentifier(validating: name) else { return nil }
            return (group, FileKind(root.appendingPathComponent(name, isDirectory: true)))
        }
    }

    /// What `path` and `create` name: a group (GROUP), or an app (`--bundle BUNDLE`).
    enum Named {
        case group(String)
        case bundle(String)

        /// From the arguments: `--bundle`, else the one positional GROUP.
        init(_ arguments: Arguments) throws {
            if let bundle = arguments.option("bundle") {
                try arguments.expectPositionals(0...0, "no GROUP with --bundle")
                self = .bundle(bundle)
            } else {
                try arguments.expectPositionals(1...1, "GROUP")
                self = .group(arguments.positionals[0])
            }
        }
    }

    /// Throws unless the root exists (as ``groups()`` reports it), for commands
    /// that would otherwise make one.
    func requireRoot() throws { _ = try entries() }

    /// True for a real directory (a link to one is not).
    func isDirectory(_ url: URL) -> Bool { FileKind(url) == .directory }
}
