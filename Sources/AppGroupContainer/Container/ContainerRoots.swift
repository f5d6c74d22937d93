import Foundation

/// The container roots this process has resolved containers under, so that code
/// far below the resolver (``AtomicFile``, the lock files of ``FileCoordinator``)
/// knows which directories of a path it must not follow a symbolic link through.
///
/// A root is registered by ``ContainerResolver`` whenever it makes or finds a
/// container, and by other modules (the keychain) that keep files under a root.
/// The root itself, and the directories above it, are trusted as configured
/// (they may be links, like macOS's `/tmp`); every directory below it must be a
/// real directory at the moment of each write (see ``ContainedDirectory``).
package enum ContainerRoots {
    private static let roots = Locked<Set<ExactPath>>([])

    /// Records `root` (standardized) as a container root.
    package static func register(_ root: URL) {
        let path = root.standardizedFileURL.path
        guard path != "/" else { return }
        roots.withLock { _ = $0.insert(ExactPath(path)) }
    }

    /// The innermost registered root that `path` (absolute, standardized) lies
    /// strictly below, or nil.
    static func innermostRoot(containing path: String) -> String? {
        let known = roots.withLock { $0 }
        if known.isEmpty { return nil }
        let bytes = Array(path.utf8)
        for i in stride(from: bytes.count - 1, to: 0, by: -1) where bytes[i] == UInt8(ascii: "/") {
            let candidate = ExactPath(String(decoding: bytes[0..<i], as: UTF8.self))
            if known.contains(candidate) { return candidate.string }
        }
        return nil
    }

    /// The outermost registered root that `path` (absolute, standardized) lies
    /// strictly below, or nil.
    static func root(containing path: String) -> String? {
        let known = roots.withLock { $0 }
        if known.isEmpty { return nil }
        let bytes = Array(path.utf8)
        // Each proper prefix that ends before a "/" is a candidate, shortest first.
        for i in 1..<max(bytes.count, 1) where bytes[i] == UInt8(ascii: "/") {
            let candidate = ExactPath(String(decoding: bytes[0..<i], as: UTF8.self))
            if known.contains(candidate) { return candidate.string }
        }
        return nil
    }
}
