import AppGroupContainer
import Foundation

/// The Notes example's identities and its `.entitlements` files (an app
/// `ai.systenics.notes`, its share extension `ai.systenics.notes.share` and widget
/// `ai.systenics.notes.widget`, all in `group.ai.systenics.notes` and the keychain
/// access group `A1B2C3D4E5.ai.systenics.notes.shared`, plus a share extension whose
/// target never joined the group), the same bytes as the files in `Examples/`.
///
/// Package-internal, not API: ShareFlowDemo writes these files when it runs away from
/// the package's source tree, and the package's tests build their Notes targets from
/// them (DeviceTestSupport's `NotesExample`).
package enum NotesExampleFiles {
    package static let teamIdentifier = "A1B2C3D4E5"
    package static let groupIdentifier = "group.ai.systenics.notes"
    package static let keychainAccessGroup = "A1B2C3D4E5.ai.systenics.notes.shared"

    /// File name, bundle identifier and kind of each target: the app, the share
    /// extension, the widget, the share extension without the group.
    package static let targets: [(file: String, bundleIdentifier: String, kind: SimulatedTarget.Kind)] = [
        ("Notes.entitlements", "ai.systenics.notes", .app),
        ("NotesShare.entitlements", "ai.systenics.notes.share", .shareExtension),
        ("NotesWidget.entitlements", "ai.systenics.notes.widget", .widget),
        ("NotesShareWithoutGroup.entitlements", "ai.systenics.notes.share", .shareExtension),
    ]

    /// The text of each example `.entitlements` file, by file name (the same bytes
    /// as the files in the package's `Examples/` folder).
    package static let entitlementsFiles: [String: String] = [
        "Notes.entitlements": plist(groups: [groupIdentifier]),
        "NotesShare.entitlements": plist(groups: [groupIdentifier]),
        "NotesWidget.entitlements": plist(groups: [groupIdentifier]),
        "NotesShareWithoutGroup.entitlements": plist(groups: []),
    ]

    /// Writes the example files into `directory` and returns their URLs by file name.
    @discardableResult
    package static func writeEntitlementsFiles(to directory: URL) throws -> [String: URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var urls: [String: URL] = [:]
        for (name, text) in entitlementsFiles {
            let url = directory.appendingPathComponent(name)
            try AtomicFile.write(Data(text.utf8), to: url, below: nil)
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
