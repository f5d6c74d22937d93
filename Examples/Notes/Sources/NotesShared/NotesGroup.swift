import Foundation
#if !canImport(Darwin)
import AppGroupFoundation // containerURL(forSecurityApplicationGroupIdentifier:) on Linux
#endif

/// The identifiers every Notes target shares, as their entitlements name them.
public enum NotesGroup {
    /// The App Group of the app, its share extension and its widget.
    public static let identifier = "group.ai.systenics.notes"
    /// The keychain access group `$(AppIdentifierPrefix)ai.systenics.notes.shared`,
    /// expanded with the Team ID: SecItem calls take the expanded string.
    public static let keychainAccessGroup = "A1B2C3D4E5.ai.systenics.notes.shared"

    /// The group's shared container.
    /// - Throws: ``NotesError/appGroupUnavailable(group:)`` where iOS answers nil:
    ///   the calling target has not joined the group.
    public static func containerURL() throws -> URL {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier) else {
            throw NotesError.appGroupUnavailable(group: identifier)
        }
        return url
    }

    /// `Library/Application Support/Notes` in the container, created if missing
    /// (NSFileCoordinator needs an item's folder to exist).
    public static func dataDirectory() throws -> URL {
        let directory = try containerURL()
            .appendingPathComponent("Library/Application Support/Notes", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
