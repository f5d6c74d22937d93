import AppGroupContainer
import Foundation

/// One signed target of an app: the app itself, a share extension, a widget...
/// each with its own bundle identifier and entitlements (extensions do not
/// inherit the app's).
public struct SimulatedTarget: Sendable, Hashable {
    /// What kind of target it is; it changes nothing but the description.
    public enum Kind: String, Sendable, Hashable {
        case app, shareExtension, widget, notificationExtension, other
    }

    /// A short name for reports, e.g. `NotesShare`.
    public let name: String
    /// The kind of target.
    public let kind: Kind
    /// Its identity: application identifier, App Groups, keychain access groups.
    public let entitlements: Entitlements

    /// The bundle identifier, e.g. `ai.systenics.notes.share`.
    public var bundleIdentifier: String { entitlements.bundleIdentifier }

    /// A target with an identity built elsewhere.
    public init(name: String, kind: Kind, entitlements: Entitlements) {
        self.name = name
        self.kind = kind
        self.entitlements = entitlements
    }

    /// A target built in code.
    /// - Throws: ``AppGroupError`` for an invalid Team ID, bundle id or group.
    public init(name: String, kind: Kind, teamIdentifier: String, bundleIdentifier: String,
                applicationGroups: [String] = [], keychainAccessGroups: [String] = []) throws {
        self.init(name: name, kind: kind,
                  entitlements: try Entitlements(teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier,
                                                 applicationGroups: applicationGroups, keychainAccessGroups: keychainAccessGroups))
    }

    /// A target whose identity comes from an Xcode `.entitlements` file.
    /// - Throws: ``AppGroupError/invalidEntitlements(source:key:problem:)`` naming the file.
    public init(name: String, kind: Kind, entitlementsFile: URL, teamIdentifier: String, bundleIdentifier: String) throws {
        self.init(name: name, kind: kind,
                  entitlements: try Entitlements(contentsOf: entitlementsFile, teamIdentifier: teamIdentifier,
                                                 bundleIdentifier: bundleIdentifier))
    }
}
