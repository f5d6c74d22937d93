import AppGroupContainer
import Foundation

/// Every error the SharedDefaults module throws (and records in
/// ``SharedDefaults/lastError`` when a UserDefaults-shaped call cannot throw).
///
/// Each case says what went wrong and where; ``description`` adds what to do.
public enum SharedDefaultsError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The suite name cannot be used: `NSGlobalDomain`, the process's own bundle
    /// identifier, an empty name or one that is not a safe file name.
    case invalidSuiteName(String, problem: String)
    /// The suite could not be opened: the identity is not entitled to the group it
    /// names, the identifier is invalid, or its container cannot be made.
    case suiteUnavailable(suite: String, reason: AppGroupError)
    /// A key cannot be written: empty, longer than 4096 bytes, or holding a NUL.
    /// The key is shown shortened. Nothing was written.
    case invalidKey(String, problem: String)
    /// A value (or a value nested inside an array or dictionary) is not a property
    /// list type. `path` locates it inside the value (`key[2].name`). Nothing was written.
    case notPropertyList(key: String, path: String, type: String)
    /// The suite serialized to `size` bytes, reaching the `limit` (4,194,304 bytes,
    /// what iOS and macOS refuse). Nothing was written.
    case suiteTooLarge(path: String, size: Int, limit: Int)
    /// The suite file is not a property list with a dictionary root. `movedTo` is
    /// where a write put it aside before starting a fresh suite (nil on a read,
    /// which leaves it in place).
    case corruptSuite(path: String, problem: String, movedTo: String?)
    /// A Codable value could not be encoded or decoded as a property list.
    case codingFailed(key: String, type: String, problem: String)
    /// The file system or the file coordinator failed (disk full, I/O error,
    /// a lock timeout, a symbolic link planted where the suite belongs...).
    case fileSystem(path: String, reason: AppGroupError)

    /// Whether the suite was refused because the calling code could be another
    /// identity scope's (`AppGroupError.identityScopeConflict`).
    var isIdentityScopeRefusal: Bool {
        if case .suiteUnavailable(_, .identityScopeConflict) = self { return true }
        return false
    }

    /// What went wrong, where, and what to do about it.
    public var description: String {
        switch self {
        case let .invalidSuiteName(name, problem):
            return "cannot use \"\(name)\" as a suite name: \(problem)"
        case let .suiteUnavailable(suite, reason):
            return "cannot open the defaults suite \(suite): \(reason)"
        case let .invalidKey(key, problem):
            return "cannot write the key \"\(key)\": \(problem); nothing was written. Use a short, non-empty key without NUL."
        case let .notPropertyList(key, path, type):
            let location = path == key ? "" : " at \(path)"
            return "attempt to store a non-property-list object of type \(type) for key \(key)\(location); nothing was written. "
                + "Property lists hold String, Int, Double, Float, Bool, Data, Date, URL (stored as its string), and arrays and dictionaries (String keys) of these; "
                + "store other types with set(codable:forKey:)."
        case let .suiteTooLarge(path, size, limit):
            return "the defaults suite \(path) would be \(size) bytes, at or over the \(limit)-byte limit iOS and macOS enforce; nothing was written. "
                + "Keep large data in files in the container and store only their names in defaults."
        case let .corruptSuite(path, problem, movedTo):
            if let movedTo {
                return "the defaults suite \(path) was corrupt (\(problem)); it was moved aside to \(movedTo) and a fresh suite started. Inspect or delete that file."
            }
            return "the defaults suite \(path) is corrupt (\(problem)); reads treat it as empty and the next write moves it aside to \(path).corrupt-<timestamp>."
        case let .codingFailed(key, type, problem):
            return "cannot convert a \(type) for key \(key) to or from a property list: \(problem)"
        case let .fileSystem(path, reason):
            return "defaults suite \(path): \(reason)"
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
