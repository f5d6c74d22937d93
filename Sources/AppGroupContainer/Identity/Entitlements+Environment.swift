import Foundation

// MARK: - The environment of a simulated process

extension Entitlements {
    /// Environment variables that carry an identity into a child process.
    package enum EnvironmentKey {
        /// `TEAMID.bundle.id`.
        package static let applicationIdentifier = "APP_GROUP_APPLICATION_IDENTIFIER"
        /// Comma-separated group identifiers.
        package static let applicationGroups = "APP_GROUP_APPLICATION_GROUPS"
        /// Comma-separated, expanded keychain access groups.
        package static let keychainAccessGroups = "APP_GROUP_KEYCHAIN_ACCESS_GROUPS"
        /// Path of an Xcode `.entitlements` file, used instead of the two lists.
        package static let entitlementsFile = "APP_GROUP_ENTITLEMENTS_FILE"
        /// The Team ID that expands `$(AppIdentifierPrefix)` in that file (defaults
        /// to the application identifier's first component).
        package static let teamIdentifier = "APP_GROUP_TEAM_ID"
        /// The bundle identifier, with the file, when no application identifier is set.
        package static let bundleIdentifier = "APP_GROUP_BUNDLE_ID"
    }

    /// The variables that make `fromEnvironment(_:)` in a child process return this
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
    /// With `APP_GROUP_ENTITLEMENTS_FILE` the file is loaded (Team ID from
    /// `APP_GROUP_TEAM_ID` or the application identifier); otherwise
    /// `APP_GROUP_APPLICATION_IDENTIFIER` and the two comma-separated lists.
    /// - Throws: ``AppGroupError/invalidEntitlements(source:key:problem:)`` naming the variable.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Entitlements? {
        try identity(inEnvironment: environment)
    }

    /// ``fromEnvironment(_:)``, typed: for the package's own code.
    package static func identity(inEnvironment environment: [String: String]) throws(AppGroupError) -> Entitlements? {
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
            return try Entitlements(loading: URL(fileURLWithPath: file), teamIdentifier: team, bundleIdentifier: bundle)
        }
        guard let appID else { return nil }
        return try Entitlements(applicationIdentifier: appID, applicationGroups: list(EnvironmentKey.applicationGroups),
                                keychainAccessGroups: list(EnvironmentKey.keychainAccessGroups),
                                source: "environment (\(EnvironmentKey.applicationIdentifier), \(EnvironmentKey.applicationGroups))")
    }

    /// The calling code's identity: the active ``IdentityScope``'s, else the
    /// process's, from its environment.
    /// - Throws: ``AppGroupError/missingIdentity(hint:)`` when the environment names none;
    ///   ``AppGroupError/identityScopeConflict(_:)`` where the calling code could be
    ///   another scope's (see ``IdentityScope/active``).
    public static func current() throws -> Entitlements {
        try currentIdentity()
    }

    /// ``current()``, typed: for the package's own code.
    package static func currentIdentity() throws(AppGroupError) -> Entitlements {
        if let scope = try IdentityScope.activeScope() { return scope.entitlements }
        guard let identity = try identity(inEnvironment: ProcessInfo.processInfo.environment) else {
            throw AppGroupError.missingIdentity(hint:
                "set \(EnvironmentKey.applicationIdentifier)=TEAMID.bundle.id and \(EnvironmentKey.applicationGroups)=group.a,group.b "
                + "(or \(EnvironmentKey.entitlementsFile)=path.entitlements with \(EnvironmentKey.teamIdentifier)), or pass an Entitlements value; "
                + "in a test, run the code as a target: `target.run(on: device) { ... }` (AppGroupTesting)")
        }
        return identity
    }
}
