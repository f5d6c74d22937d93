import Foundation

/// The directory a simulated device keeps its containers in (a resolver's root, a
/// keychain device's root), as the file primitives below the resolver are given
/// it: below it no symbolic link is followed, at each access; the root itself and
/// what is above it are trusted as configured (they may be links, like macOS's
/// `/tmp`). Passed as a value to every primitive that needs it, so that none
/// looks it up in process-wide state.
package struct ContainerRoot: Sendable, Hashable {
    /// The root's absolute, standardized path.
    package let path: String

    /// The root at `url` (standardized).
    package init(_ url: URL) {
        path = url.standardizedFileURL.path
    }

    /// The root at the absolute, standardized `path`.
    package init(path: String) {
        self.path = path
    }

    /// `root`'s path, or nil: for the system layer, which takes the root as a path.
    static func path(_ root: ContainerRoot?) -> String? { root?.path }
}

extension ContainerRoot {
    /// The device root above `url` as every process finds it from a path alone:
    /// the nearest directory holding a `.coordination` of this user that no one
    /// else may write (<doc:LockingProtocol>, section 1); nil under none.
    package static func marked(above url: URL) -> ContainerRoot? {
        CoordinationTree.deviceRoot(above: url.standardizedFileURL.path + "/.").map(ContainerRoot.init(path:))
    }
}

extension ContainerResolver {
    /// This resolver's root as the file primitives take it.
    package var containerRoot: ContainerRoot { ContainerRoot(root) }
}
