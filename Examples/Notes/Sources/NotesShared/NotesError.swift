import Foundation

/// Why a Notes operation failed: what went wrong, where, and what to do.
public enum NotesError: Error, CustomStringConvertible, LocalizedError {
    /// The target's entitlements lack the App Group, so it has no container.
    case appGroupUnavailable(group: String)
    /// A shared file exists but does not decode; it was left as it is.
    case damagedFile(URL, underlying: any Error)
    /// NSFileCoordinator refused access to a shared file.
    case coordinationFailed(URL, underlying: any Error)
    /// A keychain call returned `status`.
    case keychain(operation: String, status: Int32, message: String)

    /// What went wrong, where, and what to do, in one line.
    public var description: String {
        switch self {
        case let .appGroupUnavailable(group):
            return "No container for the App Group \(group): this target's entitlements do not list it "
                + "(com.apple.security.application-groups). Add the App Groups capability to the target and tick \(group)."
        case let .damagedFile(url, underlying):
            return "\(url.path) is not a list of Notes items (\(underlying)). It was left unchanged, "
                + "so nothing in it is lost: move it aside to start a fresh one."
        case let .coordinationFailed(url, underlying):
            return "Coordinated access to \(url.path) failed (\(underlying)). Check that its folder exists and this user may write it."
        case let .keychain(operation, status, message):
            return "\(operation) failed with status \(status): \(message)"
        }
    }

    /// ``description``, for code that shows `localizedDescription`.
    public var errorDescription: String? { description }
}
