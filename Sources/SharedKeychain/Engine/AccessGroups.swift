import AppGroupContainer

/// The access-group rules for one identity, as `securityd` applies them.
///
/// The groups, in order: the `keychain-access-groups` entries, the application
/// identifier, then (iOS only) the application groups. The first is the default
/// for an add without `kSecAttrAccessGroup`; since the application identifier
/// always precedes the application groups, an application group is never the
/// default, though it can be named. A search without a group covers them all.
struct AccessGroups {
    let identity: Entitlements
    let behavior: Keychain.Behavior
    let ordered: [String]

    init(identity: Entitlements, behavior: Keychain.Behavior) {
        self.identity = identity
        self.behavior = behavior
        var groups: [String] = []
        var candidates = identity.keychainAccessGroups + [identity.applicationIdentifier]
        if behavior.platform == .iOS { candidates += identity.applicationGroups.map(\.rawValue) }
        // Exact: two spellings of one group name are two groups, as on iOS.
        for group in candidates where !groups.contains(where: { $0.isExactly(group) }) { groups.append(group) }
        ordered = groups
    }

    /// The keychain a call goes to: always the data protection one on iOS; on macOS
    /// only when it asks (`kSecUseDataProtectionKeychain` or synchronizable).
    func kind(of query: ParsedQuery) -> KeychainKind {
        if behavior.platform == .iOS || query.useDataProtectionKeychain || query.sync == .yes { return .dataProtection }
        return .fileBased
    }

    /// Throws unless the identity holds `group`.
    func check(_ group: String) throws {
        guard ordered.contains(where: { $0.isExactly(group) }) else {
            throw KeychainError.missingEntitlement(
                group: group, bundleIdentifier: identity.bundleIdentifier, heldGroups: ordered,
                status: behavior.reportsMissingEntitlement ? SecStatus.missingEntitlement : SecStatus.itemNotFound)
        }
    }

    /// The group an add puts its item in: the named one (checked), else the first.
    func groupForAdd(_ query: ParsedQuery) throws -> String {
        if let group = query.accessGroup {
            try check(group)
            return group
        }
        // `ordered` always holds the application identifier, so it is never empty.
        return ordered.first ?? identity.applicationIdentifier
    }

    /// The files a call reads or changes: the file-based keychain's, or those of the
    /// groups it searches (checked), or for an add the one group it adds to.
    func parts(for query: ParsedQuery, adding: Bool = false) throws -> [KeychainPart] {
        if kind(of: query) == .fileBased { return [.fileBased] }
        if adding { return [.group(try groupForAdd(query))] }
        if let group = query.accessGroup {
            try check(group)
            return [.group(group)]
        }
        return ordered.map(KeychainPart.group)
    }

    /// The groups a search covers: the named one (checked), else all of them.
    func groupsSearched(by query: ParsedQuery) throws -> Set<ExactString> {
        if let group = query.accessGroup {
            try check(group)
            return [ExactString(group)]
        }
        return Set(ordered.map(ExactString.init))
    }
}
