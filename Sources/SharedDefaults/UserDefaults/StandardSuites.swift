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
            // Not cached: an identity may appear later (a scope, a test's setup).
            return UserDefaults(backing: unavailable(error))
        }
        // A NUL cannot appear in a path or a bundle identifier: an unambiguous key.
        let key = resolver.root.path + "\u{0}" + resolver.entitlements.bundleIdentifier
        if let known = lock.withLock({ objects[key] }) { return known }
        let made = UserDefaults(backing: backing(resolver: resolver))
        return lock.withLock {
            // Another thread may have made one meanwhile: keep the first, so all share one.
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
