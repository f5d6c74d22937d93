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

    public static let applicationIdentifierKey = "application-identifier"
    public static let applicationGroupsKey = "com.apple.security.application-groups"
    public static let keychainAccessGroupsKey = "keychain-access-groups"

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

    init(applicationIdentifier: String, applicationGroups: [String], keychainAccessGroups: [String], source: String) throws {
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
        self.applicationIdentifier = applicationIdentifier
        self.applicationGroups = groups
        self.keychainAccessGroups = keychainAccessGroups
    }

    static func validateApplicationIdentifier(_ id: String, source: String) throws {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, GroupIdentifier.isTeamIdentifier(parts[0]) else {
            throw AppGroupError.invalidEntitlements(
                source: source, key: applicationIdentifierKey,
                problem: "\(AppGroupError.quote(id)) is not TEAMID.bundle.id (a ten-character upper-case Team ID, a dot, a bundle identifier)")
        }
        try validateBundleIdentifier(String(parts[1]), source: source)
    }

    static func validateBundleIdentifier(_ bundle: String, source: String) throws {
        let ok = !bundle.isEmpty && !bundle.hasPrefix(".") && !bundle.hasSuffix(".") && !bundle.contains("..")
            && bundle.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x2E }
        if !ok {
            throw AppGroupError.invalidEntitlements(
                source: source, key: applicationIdentifierKey,
                problem: "bundle identifier \(AppGroupError.quote(bundle)) must be letters, digits, '-' and '.' in reverse-DNS form")
        }
    }
}

// MARK: - Xcode .entitlements files

extension Entitlements {
    /// Loads an Xcode `.entitlements` file (an XML or binary property list) and
    /// expands `$(AppIdentifierPrefix)` and `$(TeamIdentifierPrefix)` to `TEAMID.`,
    /// and `$(CFBundleIdentifier)` / `$(PRODUCT_BUNDLE_IDENTIFIER)` to the bundle id,
    /// as signing does.
    ///
    /// Xcode adds `application-identifier` at signing time, so most files lack it:
    /// `bundleIdentifier` supplies it then. A file that has one must agree.
    /// - Throws: ``AppGroupError/invalidEntitlements(source:key:problem:)`` naming the
    ///   file and the key, for a file that is not a property list, wrong types, an
    ///   unexpanded build setting or a group that is not a valid identifier.
    public init(contentsOf url: URL, teamIdentifier: String, bundleIdentifier: String? = nil) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AppGroupError.invalidEntitlements(source: url.path, key: "(file)", problem: "cannot be read: \(error.localizedDescription)")
        }
        try self.init(propertyList: data, source: url.path, teamIdentifier: teamIdentifier, bundleIdentifier: bundleIdentifier)
    }

    /// Parses the bytes of an entitlements property list; `source` names it in errors.
    public init(propertyList data: Data, source: String, teamIdentifier: String, bundleIdentifier: String? = nil) throws {
        guard GroupIdentifier.isTeamIdentifier(teamIdentifier) else {
            throw AppGroupError.invalidEntitlements(source: source, key: "(team identifier)",
                problem: "\(AppGroupError.quote(teamIdentifier)) is not a ten-character upper-case Team ID such as A1B2C3D4E5")
        }
        if let problem = PropertyListScreen.problem(in: data) {
            throw AppGroupError.invalidEntitlements(source: source, key: "(file)", problem: problem)
        }
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw AppGroupError.invalidEntitlements(source: source, key: "(file)",
                problem: "not a property list (\(data.count) bytes); an .entitlements file is an XML plist with a <dict> root")
        }
        guard let dict = root as? [String: Any] else {
            throw AppGroupError.invalidEntitlements(source: source, key: "(root)",
                problem: "the root is a \(Self.typeName(root)), expected a dictionary")
        }
        let expand = { (value: String, key: String) throws -> String in
            var s = value.replacingOccurrences(of: "$(AppIdentifierPrefix)", with: teamIdentifier + ".")
                .replacingOccurrences(of: "$(TeamIdentifierPrefix)", with: teamIdentifier + ".")
            if let bundleIdentifier {
                s = s.replacingOccurrences(of: "$(CFBundleIdentifier)", with: bundleIdentifier)
                    .replacingOccurrences(of: "$(PRODUCT_BUNDLE_IDENTIFIER)", with: bundleIdentifier)
            }
            if let range = s.range(of: "$(") {
                let name = s[range.lowerBound...].prefix(while: { $0 != ")" })
                throw AppGroupError.invalidEntitlements(source: source, key: key,
                    problem: "build setting \(name)) is not expanded; only $(AppIdentifierPrefix), $(TeamIdentifierPrefix) and the bundle identifier are")
            }
            return s
        }
        func strings(_ key: String) throws -> [String] {
            guard let value = dict[key] else { return [] }
            guard let array = value as? [Any] else {
                throw AppGroupError.invalidEntitlements(source: source, key: key,
                    problem: "is a \(Self.typeName(value)), expected an array of strings")
            }
            return try array.enumerated().map { index, element in
                guard let string = element as? String else {
                    throw AppGroupError.invalidEntitlements(source: source, key: "\(key)[\(index)]",
                        problem: "is a \(Self.typeName(element)), expected a string")
                }
                return try expand(string, key)
            }
        }
        var applicationIdentifier: String
        if let value = dict[Self.applicationIdentifierKey] {
            guard let string = value as? String else {
                throw AppGroupError.invalidEntitlements(source: source, key: Self.applicationIdentifierKey,
                    problem: "is a \(Self.typeName(value)), expected a string")
            }
            applicationIdentifier = try expand(string, Self.applicationIdentifierKey)
            if let bundleIdentifier, applicationIdentifier != teamIdentifier + "." + bundleIdentifier {
                throw AppGroupError.invalidEntitlements(source: source, key: Self.applicationIdentifierKey,
                    problem: "\(applicationIdentifier) disagrees with the team and bundle identifier given (\(teamIdentifier).\(bundleIdentifier))")
            }
        } else if let bundleIdentifier {
            applicationIdentifier = teamIdentifier + "." + bundleIdentifier
        } else {
            throw AppGroupError.invalidEntitlements(source: source, key: Self.applicationIdentifierKey,
                problem: "missing, and no bundle identifier was given to build it from (Xcode adds it at signing: pass the target's bundle id)")
        }
        try self.init(applicationIdentifier: applicationIdentifier,
                      applicationGroups: try strings(Self.applicationGroupsKey),
                      keychainAccessGroups: try strings(Self.keychainAccessGroupsKey),
                      source: source)
    }

    static func typeName(_ value: Any) -> String {
        switch value {
        case is String: return "string"
        case is Bool: return "boolean"
        case is Int, is Double: return "number"
        case is Data: return "data"
        case is Date: return "date"
        case is [Any]: return "array"
        case is [String: Any]: return "dictionary"
        default: return String(describing: type(of: value))
        }
    }
}

// MARK: - The environment of a simulated process

extension Entitlements {
    /// Environment variables that carry an identity into a child process.
    public enum EnvironmentKey {
        /// `TEAMID.bundle.id`.
        public static let applicationIdentifier = "APP_GROUP_APPLICATION_IDENTIFIER"
        /// Comma-separated group identifiers.
        public static let applicationGroups = "APP_GROUP_APPLICATION_GROUPS"
        /// Comma-separated, expanded keychain access groups.
        public static let keychainAccessGroups = "APP_GROUP_KEYCHAIN_ACCESS_GROUPS"
        /// Path of an Xcode `.entitlements` file, used instead of the two lists.
        public static let entitlementsFile = "APP_GROUP_ENTITLEMENTS_FILE"
        /// The Team ID that expands `$(AppIdentifierPrefix)` in that file (defaults
        /// to the application identifier's first component).
        public static let teamIdentifier = "APP_GROUP_TEAM_ID"
        /// The bundle identifier, with the file, when no application identifier is set.
        public static let bundleIdentifier = "APP_GROUP_BUNDLE_ID"
    }

    /// The variables that make ``fromEnvironment(_:)`` in a child process return this
    /// identity. Merge them into the child's environment: the file-based variables
    /// are set empty, so an entitlements file named by the parent cannot override it.
    public var environment: [String: String] {
        [
            EnvironmentKey.applicationIdentifier: applicationIdentifier,
            EnvironmentKey.applicationGroups: applicationGroups.map(\.rawValue).joined(separator: ","),
            EnvironmentKey.keychainAccessGroups: keychainAccessGroups.joined(separator: ","),
            EnvironmentKey.entitlementsFile: "",
            EnvironmentKey.teamIdentifier: "",
            EnvironmentKey.bundleIdentifier: "",
        ]
    }

    /// The identity described by `environment` (the process's own by default), or nil
    /// when it names none.
    ///
    /// With ``EnvironmentKey/entitlementsFile`` the file is loaded (Team ID from
    /// ``EnvironmentKey/teamIdentifier`` or the application identifier); otherwise
    /// ``EnvironmentKey/applicationIdentifier`` and the two comma-separated lists.
    /// - Throws: ``AppGroupError/invalidEntitlements(source:key:problem:)`` naming the variable.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Entitlements? {
        // An empty variable counts as unset (``environment`` sets some empty on purpose).
        let value = { (key: String) -> String? in environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        let list = { (key: String) -> [String] in
            (value(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let appID = value(EnvironmentKey.applicationIdentifier)
        if let file = value(EnvironmentKey.entitlementsFile) {
            let team = value(EnvironmentKey.teamIdentifier) ?? appID.map { String($0.prefix(while: { $0 != "." })) }
            guard let team else {
                throw AppGroupError.invalidEntitlements(source: "environment", key: EnvironmentKey.teamIdentifier,
                    problem: "\(EnvironmentKey.entitlementsFile) is set but neither \(EnvironmentKey.teamIdentifier) nor \(EnvironmentKey.applicationIdentifier) gives the Team ID")
            }
            let bundle = value(EnvironmentKey.bundleIdentifier)
                ?? appID.map { String($0.dropFirst(team.count + 1)) }
            return try Entitlements(contentsOf: URL(fileURLWithPath: file), teamIdentifier: team, bundleIdentifier: bundle)
        }
        guard let appID else { return nil }
        return try Entitlements(applicationIdentifier: appID, applicationGroups: list(EnvironmentKey.applicationGroups),
                                keychainAccessGroups: list(EnvironmentKey.keychainAccessGroups),
                                source: "environment (\(EnvironmentKey.applicationIdentifier), \(EnvironmentKey.applicationGroups))")
    }

    /// The process's identity from its environment.
    /// - Throws: ``AppGroupError/missingIdentity(hint:)`` when the environment names none.
    public static func current() throws -> Entitlements {
        guard let identity = try fromEnvironment() else {
            throw AppGroupError.missingIdentity(hint:
                "set \(EnvironmentKey.applicationIdentifier)=TEAMID.bundle.id and \(EnvironmentKey.applicationGroups)=group.a,group.b "
                + "(or \(EnvironmentKey.entitlementsFile)=path.entitlements with \(EnvironmentKey.teamIdentifier)), or pass an Entitlements value")
        }
        return identity
    }
}
