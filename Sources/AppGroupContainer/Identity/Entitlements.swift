import Foundation

/// The identity of a simulated process: what a signed app or extension carries in
/// its entitlements.
///
/// Every target (app, share extension, widget) has its own; extensions do not
/// inherit the app's. Build one in code, load it from a real Xcode `.entitlements`
/// file with ``init(contentsOf:teamIdentifier:bundleIdentifier:)``, or read it
/// from the environment with ``fromEnvironment(_:)`` so that a child process
/// started by a test carries its identity (see ``environment``).
public struct Entitlements: Hashable, Sendable, Codable {
    /// `application-identifier`, for example `A1B2C3D4E5.ai.systenics.notes.share`.
    public let applicationIdentifier: String
    /// `com.apple.security.application-groups`.
    public let applicationGroups: [GroupIdentifier]
    /// `keychain-access-groups`, expanded (`A1B2C3D4E5.com.example.vault`).
    public let keychainAccessGroups: [String]

    package static let applicationIdentifierKey = "application-identifier"
    package static let applicationGroupsKey = "com.apple.security.application-groups"
    package static let keychainAccessGroupsKey = "keychain-access-groups"

    enum CodingKeys: String, CodingKey {
        case applicationIdentifier, applicationGroups, keychainAccessGroups
    }

    /// Decodes an identity through the same validation as every other way of
    /// loading one (the App ID prefix rule included), so a crafted archive cannot
    /// carry an identity that code, the environment or a file could not.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(applicationIdentifier: try values.decode(String.self, forKey: .applicationIdentifier),
                      applicationGroups: try values.decode([String].self, forKey: .applicationGroups),
                      keychainAccessGroups: try values.decode([String].self, forKey: .keychainAccessGroups),
                      source: "decoded Entitlements")
    }

    /// The ten-character Team ID: the application identifier's first component.
    public var teamIdentifier: String { String(applicationIdentifier.prefix(while: { $0 != "." })) }

    /// The bundle identifier: the application identifier without its Team ID.
    public var bundleIdentifier: String { String(applicationIdentifier.dropFirst(teamIdentifier.count + 1)) }

    /// True when `group` is in ``applicationGroups``.
    public func isEntitled(to group: GroupIdentifier) -> Bool { applicationGroups.contains(group) }

    /// Builds an identity in code.
    /// - Parameters:
    ///   - applicationIdentifier: `TEAMID.bundle.id`.
    ///   - applicationGroups: group identifiers; each is validated.
    ///   - keychainAccessGroups: already expanded (`TEAMID.com.example.vault`).
    /// - Throws: ``AppGroupError/invalidEntitlements(source:key:problem:)`` or
    ///   ``AppGroupError/invalidGroupIdentifier(_:rule:)``.
    public init(applicationIdentifier: String, applicationGroups: [String] = [], keychainAccessGroups: [String] = []) throws {
        try self.init(applicationIdentifier: applicationIdentifier, applicationGroups: applicationGroups,
                      keychainAccessGroups: keychainAccessGroups, source: "code")
    }

    /// Builds an identity from a Team ID and a bundle identifier.
    public init(teamIdentifier: String, bundleIdentifier: String, applicationGroups: [String] = [], keychainAccessGroups: [String] = []) throws {
        try self.init(applicationIdentifier: teamIdentifier + "." + bundleIdentifier, applicationGroups: applicationGroups,
                      keychainAccessGroups: keychainAccessGroups, source: "code")
    }

    init(applicationIdentifier: String, applicationGroups: [String], keychainAccessGroups: [String], source: String) throws(AppGroupError) {
        try Self.validateApplicationIdentifier(applicationIdentifier, source: source)
        var groups: [GroupIdentifier] = []
        for raw in applicationGroups {
            guard let group = GroupIdentifier(validating: raw) else {
                let rule = GroupIdentifier.violation(in: raw) ?? .empty
                throw AppGroupError.invalidEntitlements(
                    source: source, key: Self.applicationGroupsKey,
                    problem: "\(AppGroupError.quote(raw)) is not a valid group identifier: \(rule.explanation)")
            }
            if !groups.contains(group) { groups.append(group) }
        }
        // A comma could not cross the environment (the lists are comma-separated),
        // and no real access group has one.
        for group in keychainAccessGroups where group.isEmpty || group.contains("$(") || group.contains(",")
            || group.unicodeScalars.contains(where: { $0.value < 0x20 || $0.properties.isWhitespace }) {
            throw AppGroupError.invalidEntitlements(
                source: source, key: Self.keychainAccessGroupsKey,
                problem: "\(AppGroupError.quote(group)) is not an expanded access group (expected TEAMID.com.example.vault)")
        }
        try Self.checkKeychainAccessGroupPrefixes(keychainAccessGroups, applicationIdentifier: applicationIdentifier, source: source)
        self.applicationIdentifier = applicationIdentifier
        self.applicationGroups = groups
        self.keychainAccessGroups = keychainAccessGroups
    }

    /// The App ID prefix rule: signing grants `keychain-access-groups` only under the
    /// target's own App ID prefix (the application identifier's first component,
    /// the Team ID for every app made since 2011). App Groups (`group.`) and Apple's
    /// `com.apple.token` are the exceptions iOS allows. Without this check a target
    /// of team Z9Y8X7W6V5 listing `A1B2C3D4E5.com.example.vault` would read the
    /// other team's items, which no signed iOS target can.
    static func checkKeychainAccessGroupPrefixes(_ groups: [String], applicationIdentifier: String, source: String) throws(AppGroupError) {
        let prefix = String(applicationIdentifier.prefix(while: { $0 != "." }))
        for (index, group) in groups.enumerated() {
            if group.hasPrefix(prefix + ".") || group.hasPrefix(GroupIdentifier.prefix) || group == appleTokenAccessGroup { continue }
            let named = group.split(separator: ".", maxSplits: 1).first.map(String.init) ?? group
            let whose = GroupIdentifier.isTeamIdentifier(named) ? "names the team \(named), not the target's own \(prefix)" : "has no App ID prefix"
            throw AppGroupError.invalidEntitlements(
                source: source, key: "\(keychainAccessGroupsKey)[\(index)]",
                problem: "\(AppGroupError.quote(group)) \(whose). Rule (App ID prefix): a keychain access group must begin with the target's own App ID prefix (\(prefix).), as $(AppIdentifierPrefix) expands; only App Groups (group.) and com.apple.token may appear otherwise. Sharing items with another team's apps is not possible on iOS: share through a server or the other team's app instead")
        }
    }

    /// The access group of CryptoTokenKit tokens, which iOS lets any app list.
    static let appleTokenAccessGroup = "com.apple.token"

    static func validateApplicationIdentifier(_ id: String, source: String) throws(AppGroupError) {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, GroupIdentifier.isTeamIdentifier(parts[0]) else {
            throw AppGroupError.invalidEntitlements(
                source: source, key: applicationIdentifierKey,
                problem: "\(AppGroupError.quote(id)) is not TEAMID.bundle.id (a ten-character upper-case Team ID, a dot, a bundle identifier)")
        }
        try validateBundleIdentifier(String(parts[1]), source: source)
    }

    static func validateBundleIdentifier(_ bundle: String, source: String) throws(AppGroupError) {
        let ok = !bundle.isEmpty && !bundle.hasPrefix(".") && !bundle.hasSuffix(".") && !bundle.contains("..")
            && bundle.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x2E }
        if !ok {
            throw AppGroupError.invalidEntitlements(
                source: source, key: applicationIdentifierKey,
                problem: "bundle identifier \(AppGroupError.quote(bundle)) must be letters, digits, '-' and '.' in reverse-DNS form")
        }
    }
}
