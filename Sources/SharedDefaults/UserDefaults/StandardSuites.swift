#if !canImport(Darwin)
import AppGroupContainer
import Foundation

/// The `UserDefaults.standard` objects: one per identity and container root, so
/// a process (or a scope) playing one target always gets the same object, and
/// another identity its own.
enum StandardSuites {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var objects: [String: UserDefaults] = [:]

    /// The standard object of the current identity (`ContainerResolver.current()`).
    static func current() -> UserDefaults {
        let resolver: ContainerResolver
        do {
            resolver = try SharedDefaults.environmentResolver(suiteName: nil)
        } catch {
            // Refused (the caller could be another scope's): a fresh object each time,
            // so that each access says so; the next access may be answered.
            if error.isIdentityScopeRefusal {
                return UserDefaults(backing: .unavailable(error))
            }
            // Resolved again on every access (an identity may appear later: a scope,
            // a test's setup); one object per reason, so the reason is said once.
            let key = "\u{0}\(error)"
            return lookup(key) ?? keep(UserDefaults(backing: unavailable(error)), under: key)
        }
        // A NUL cannot appear in a path or a bundle identifier: an unambiguous key.
        let key = resolver.root.path + "\u{0}" + resolver.entitlements.bundleIdentifier
        if let known = lookup(key) { return known }
        // Opened outside the lock (it touches the disk). A failure is not kept: the next access tries again.
        let opened = backing(resolver: resolver)
        guard case .suite = opened else { return UserDefaults(backing: opened) }
        return keep(UserDefaults(backing: opened), under: key)
    }

    private static func lookup(_ key: String) -> UserDefaults? { lock.withLock { objects[key] } }

    /// Keeps `made` under `key`, unless another thread kept one meanwhile: then
    /// that one, so that all callers share one object.
    private static func keep(_ made: UserDefaults, under key: String) -> UserDefaults {
        lock.withLock {
            if let known = objects[key] { return known }
            objects[key] = made
            return made
        }
    }

    static func reset() { lock.withLock { objects.removeAll() } }

    /// The target's own domain, or why it cannot be opened.
    static func openBacking() -> UserDefaults.Backing {
        do {
            return backing(resolver: try SharedDefaults.environmentResolver(suiteName: nil))
        } catch {
            return unavailable(error)
        }
    }

    private static func backing(resolver: ContainerResolver) -> UserDefaults.Backing {
        do {
            return .suite(try SharedDefaults(requiringSuiteName: nil, resolver: resolver))
        } catch {
            return unavailable(error)
        }
    }

    /// Every path here throws SharedDefaultsError; anything else is kept, not dropped.
    private static func unavailable(_ error: Error) -> UserDefaults.Backing {
        .unavailable(error as? SharedDefaultsError ?? .codingFailed(key: "(standard domain)", type: "identity", problem: "\(error)"))
    }
}
#endif
