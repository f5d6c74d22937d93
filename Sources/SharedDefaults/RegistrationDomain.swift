import AppGroupContainer
import Foundation
import PropertyLists

/// The registration domain: defaults registered with
/// ``SharedDefaults/register(defaults:)``.
///
/// As on Apple's platforms (NSRegistrationDomain) there is one per process, in the
/// search list of every suite: a default registered through one instance answers
/// for all of them, including instances made later, and for no other process. It
/// lives in memory only and is never written.
final class RegistrationDomain: @unchecked Sendable {
    static let shared = RegistrationDomain()

    private let lock = NSLock()
    // By exact spelling, as Apple's NSRegistrationDomain (CFString keys) looks keys up.
    private var values: [ExactKey: Any] = [:]

    func register(_ normalized: [String: Any]) {
        lock.withLock {
            for (key, value) in normalized { values[ExactKey(key)] = value }
        }
    }

    func value(forKey key: String) -> Any? {
        lock.withLock { values.isEmpty ? nil : values[ExactKey(key)] }
    }

    var exactSnapshot: [ExactKey: Any] { lock.withLock { values } }

    /// The domain as a Swift dictionary: of keys equal as Swift strings, either one.
    var snapshot: [String: Any] {
        lock.withLock {
            var out: [String: Any] = [:]
            for (key, value) in values { out[key.string] = value }
            return out
        }
    }
}
