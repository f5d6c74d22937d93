import Foundation

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
    private var values: [String: Any] = [:]

    func register(_ normalized: [String: Any]) {
        lock.withLock { values.merge(normalized) { _, new in new } }
    }

    func value(forKey key: String) -> Any? {
        lock.withLock { values.isEmpty ? nil : values[key] }
    }

    var snapshot: [String: Any] { lock.withLock { values } }
}
