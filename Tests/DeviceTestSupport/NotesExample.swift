import AppGroupContainer
import AppGroupTesting
import Foundation

/// The Notes example (an app, its share extension and widget) as ready-made targets,
/// built from the example `.entitlements` files (``NotesExampleFiles``): the tests'
/// fixture, not API (it left AppGroupSimulation's public surface for this target).
package struct NotesExample: Sendable {
    package static let teamIdentifier = NotesExampleFiles.teamIdentifier
    package static let groupIdentifier = NotesExampleFiles.groupIdentifier
    package static let keychainAccessGroup = NotesExampleFiles.keychainAccessGroup
    package static var entitlementsFiles: [String: String] { NotesExampleFiles.entitlementsFiles }

    /// The app, `ai.systenics.notes` (`Notes.entitlements`).
    package let app: SimulatedTarget
    /// The share extension, `ai.systenics.notes.share` (`NotesShare.entitlements`).
    package let shareExtension: SimulatedTarget
    /// The widget, `ai.systenics.notes.widget` (`NotesWidget.entitlements`).
    package let widget: SimulatedTarget
    /// A share extension whose target lacks the App Groups capability
    /// (`NotesShareWithoutGroup.entitlements`): its container URL is nil.
    package let shareExtensionWithoutGroup: SimulatedTarget

    /// Builds the four targets from the embedded entitlements files.
    package init() throws {
        var built: [SimulatedTarget] = []
        for target in NotesExampleFiles.targets {
            let text = Self.entitlementsFiles[target.file] ?? ""
            let entitlements = try Entitlements(propertyList: Data(text.utf8), source: "Examples/" + target.file,
                                                teamIdentifier: Self.teamIdentifier, bundleIdentifier: target.bundleIdentifier)
            built.append(SimulatedTarget(name: String(target.file.dropLast(".entitlements".count)), kind: target.kind, entitlements: entitlements))
        }
        app = built[0]
        shareExtension = built[1]
        widget = built[2]
        shareExtensionWithoutGroup = built[3]
    }

    /// The App Group's container on `device`, as the app resolves it.
    package func groupContainer(on device: SimulatedDevice) throws -> URL {
        try device.resolver(for: app).requireContainerURL(forSecurityApplicationGroupIdentifier: Self.groupIdentifier)
    }

    /// Writes the example files into `directory` and returns their URLs by file name.
    @discardableResult
    package static func writeEntitlementsFiles(to directory: URL) throws -> [String: URL] {
        try NotesExampleFiles.writeEntitlementsFiles(to: directory)
    }
}
