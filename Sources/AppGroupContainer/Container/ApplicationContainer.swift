import Foundation

extension ContainerResolver {
    /// The directory under the root that holds the per-application containers.
    /// Its name has no dot, so no valid group identifier can collide with it.
    package static let applicationsDirectoryName = "Applications"

    /// Where the identity's own (sandbox) container is, without touching the disk:
    /// `<root>/Applications/<bundle id>/`. It stands in for the app's private
    /// container on iOS, which only that app (not its extensions) can see.
    package func applicationContainerLocation() -> URL {
        root.appendingPathComponent(Self.applicationsDirectoryName, isDirectory: true)
            .appendingPathComponent(entitlements.bundleIdentifier, isDirectory: true)
    }

    /// The identity's own container, created on first use with the same layout as a
    /// group container (`Library/Caches`, `Library/Preferences`), directories 0700.
    /// No entitlement is needed: every process has its own container.
    /// - Throws: file-system errors; ``AppGroupError/unsafePath(path:problem:)`` when a
    ///   symbolic link stands where one of its directories belongs;
    ///   ``AppGroupError/untrustedDirectory(path:owner:mode:user:)`` for one owned by
    ///   another user (see ``ContainerResolver``).
    public func requireApplicationContainerURL() throws -> URL {
        try applicationContainerURL()
    }

    /// ``requireApplicationContainerURL()``, typed: for the package's own code.
    package func applicationContainerURL() throws(AppGroupError) -> URL {
        try Self.makeRoot(root)
        try CoordinationTree.prepare(root: root.path)
        try TrustedDirectory.make(root.appendingPathComponent(Self.applicationsDirectoryName, isDirectory: true).path)
        // The bundle identifier was validated by Entitlements: one safe path component.
        let container = applicationContainerLocation()
        try TrustedDirectory.make(container.path)
        for sub in Self.standardSubdirectories {
            try TrustedDirectory.make(container.appendingPathComponent(sub, isDirectory: true).path)
        }
        return container
    }
}
