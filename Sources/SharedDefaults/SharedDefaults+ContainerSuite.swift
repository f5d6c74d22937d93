import AppGroupContainer
import Foundation

extension SharedDefaults {
    /// Opens the suite `suiteName` kept in the container of the App Group
    /// `groupIdentifier`: `<container>/Library/Preferences/<suiteName>.plist`.
    ///
    /// Apps reach a group's suite with `SharedDefaults(suiteName: group)`, whose file
    /// is `<group>.plist` in that container; this opens any suite file a container
    /// holds, for tools that inspect containers (the `appgroup` command). With
    /// `suiteName == groupIdentifier` it is the same suite, the same file and lock.
    /// Reads, writes and observation work as for any suite.
    /// - Parameters:
    ///   - suiteName: the file's name without `.plist`.
    ///   - groupIdentifier: the group whose container holds it; the identity of
    ///     `resolver` must be entitled to it.
    /// - Throws: ``SharedDefaultsError/invalidSuiteName(_:problem:)`` for a name that
    ///   cannot be a file name; ``SharedDefaultsError/suiteUnavailable(suite:reason:)``
    ///   when the identity is not entitled, the identifier is invalid or the
    ///   container cannot be made.
    package convenience init(requiringSuiteName suiteName: String, inContainerOf groupIdentifier: String,
                            resolver: ContainerResolver, coordinator: FileCoordinator = FileCoordinator(timeout: 30),
                            durable: Bool = true, format: PropertyListSerialization.PropertyListFormat = .binary) throws {
        if let problem = SuiteLocation.fileNameProblem(suiteName) {
            throw SharedDefaultsError.invalidSuiteName(suiteName, problem: problem)
        }
        let group: GroupIdentifier
        let container: URL
        do {
            group = try GroupIdentifier.validated(groupIdentifier)
            container = try resolver.containerURL(ofGroup: group.rawValue)
        } catch {
            throw SharedDefaultsError.suiteUnavailable(suite: suiteName, reason: error)
        }
        let location = SuiteLocation.at(container, name: suiteName, group: group, root: resolver.containerRoot)
        self.init(location: location, suiteName: suiteName, coordinator: coordinator, durable: durable, format: format)
    }
}
