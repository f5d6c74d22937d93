import AppGroupContainer
import Foundation

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
        guard isDirectory(container) else {
            let present = (try? groups().map(\.rawValue)) ?? []
            let known = present.isEmpty ? "no group is present there" : "groups present: " + present.joined(separator: ", ")
            throw CLIError.notFound("unknown group \(group.rawValue): no container at \(container.path) (\(known)); "
                                    + "a container is made when an app or extension first resolves it, or check --root / APP_GROUP_CONTAINERS_ROOT")
        }
        return (group, container)
    }

    /// The groups present: directories of the root named by a valid group
    /// identifier (`Applications/`, the per-app containers, is not one), sorted.
    func groups() throws -> [GroupIdentifier] {
        guard isDirectory(root) else {
            throw CLIError.notFound("no container root at \(root.path): pass --root DIR or set APP_GROUP_CONTAINERS_ROOT to the root your app or test uses")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root.path)
        } catch {
            throw CLIError.failed("cannot list the container root \(root.path): \(error.localizedDescription)")
        }
        return names.sorted().compactMap { name in
            guard let group = GroupIdentifier(validating: name) else { return nil }
            return isDirectory(root.appendingPathComponent(name, isDirectory: true)) ? group : nil
        }
    }

    func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }
}
