import AppGroupContainer
import Foundation

/// The Notes example (an app, its share extension and widget) as ready-made targets: the app `ai.systenics.notes`,
/// its share extension `ai.systenics.notes.share` and widget
/// `ai.systenics.notes.widget`, all in `group.ai.systenics.notes` and the keychain
/// access group `A1B2C3D4E5.ai.systenics.notes.shared`, plus a share extension
/// whose target never joined the group (the platform's quiet failure: a nil container).
///
/// The identities come from the `.entitlements` files shipped in `Examples/`,
/// whose text is embedded here (``entitlementsFiles``) so that it works anywhere.
public struct NotesExample: Sendable {
    public static let teamIdentifier = "A1B2C3D4E5"
    public static let groupIdentifier = "group.ai.systenics.notes"
    public static let keychainAccessGroup = "A1B2C3D4E5.ai.systenics.notes.shared"

    /// The app, `ai.systenics.notes` (`Notes.entitlements`).
    public let app: SimulatedTarget
    /// The share extension, `ai.systenics.notes.share` (`NotesShare.entitlements`).
    public let shareExtension: SimulatedTarget
    /// The widget, `ai.systenics.notes.widget` (`NotesWidget.entitlements`).
    public let widget: SimulatedTarget
    /// A share extension whose target lacks the App Groups capability
    /// (`NotesShareWithoutGroup.entitlements`): its container URL is nil.
    public let shareExtensionWithoutGroup: SimulatedTarget

    /// File name, bundle identifier and kind of each target, in the order above.
    public static let targets: [(file: String, bundleIdentifier: String, kind: SimulatedTarget.Kind)] = [
        ("Notes.entitlements", "ai.systenics.notes", .app),
        ("NotesShare.entitlements", "ai.systenics.notes.share", .shareExtension),
        ("NotesWidget.entitlements", "ai.systenics.notes.widget", .widget),
        ("NotesShareWithoutGroup.entitlements", "ai.systenics.notes.share", .shareExtension),
    ]

    /// Builds the four targets from the embedded entitlements files.
    public init() throws {
        var built: [SimulatedTarget] = []
        for target in Self.targets {
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

    /// The text of each example `.entitlements` file, by file name (the same bytes
    /// as the files in the package's `Examples/` folder).
    public static let entitlementsFiles: [String: String] = [
        "Notes.entitlements": plist(groups: [groupIdentifier]),
        "NotesShare.entitlements": plist(groups: [groupIdentifier]),
        "NotesWidget.entitlements": plist(groups: [groupIdentifier]),
        "NotesShareWithoutGroup.entitlements": plist(groups: []),
    ]

    /// Writes the example files into `directory` and returns their URLs by file name.
    @discardableResult
    public static func writeEntitlementsFiles(to directory: URL) throws -> [String: URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var urls: [String: URL] = [:]
        for (name, text) in entitlementsFiles {
            let url = directory.appendingPathComponent(name)
            try AtomicFile.write(Data(text.utf8), to: url)
            urls[name] = url
        }
        return urls
    }

    private static func plist(groups: [String]) -> String {
        var body = ""
        if !groups.isEmpty {
            body += "\t<key>com.apple.security.application-groups</key>\n\t<array>\n"
            for group in groups { body += "\t\t<string>\(group)</string>\n" }
            body += "\t</array>\n"
        }
        body += "\t<key>keychain-access-groups</key>\n\t<array>\n\t\t<string>$(AppIdentifierPrefix)ai.systenics.notes.shared</string>\n\t</array>\n"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(body)</dict>
            </plist>

            """
    }
}
