import AppGroupContainer

/// The seeds' targets: one team, a Keychain Sharing group and an App Group.
enum Targets {
    static let team = "A1B2C3D4E5"
    static let vault = "A1B2C3D4E5.com.example.vault"
    static let suite = "group.com.example.suite"

    static func make(_ bundle: String, sharing: Bool = true, groups: [String] = [suite]) -> Entitlements {
        // Constant identities known to be valid: a failure is a bug in the test itself.
        try! Entitlements(teamIdentifier: team, bundleIdentifier: bundle, applicationGroups: groups,
                          keychainAccessGroups: sharing ? [vault] : [])
    }

    static let app = make("com.example.reader")
    static let share = make("com.example.reader.share")
    static let widget = make("com.example.reader.widget")
    /// A notification extension whose target lacks the Keychain Sharing capability.
    static let bareExtension = make("com.example.reader.notify", sharing: false)
    /// An app and extension that share only an App Group, no Keychain Sharing.
    static let groupOnlyApp = make("com.example.reader", sharing: false)
    static let groupOnlyShare = make("com.example.reader.share", sharing: false)
}
