import AppGroupTesting
import AppGroupContainer
import Foundation
import Testing
import TestSupport

/// An entitlements file as Xcode writes it for a share extension.
let xcodeEntitlements = """
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
\t<key>com.apple.security.app-sandbox</key>
\t<true/>
\t<key>com.apple.security.application-groups</key>
\t<array>
\t\t<string>group.ai.systenics.notes</string>
\t\t<string>$(TeamIdentifierPrefix)ai.systenics.shared</string>
\t</array>
\t<key>keychain-access-groups</key>
\t<array>
\t\t<string>$(AppIdentifierPrefix)ai.systenics.notes</string>
\t\t<string>$(AppIdentifierPrefix)com.example.vault</string>
\t</array>
\t<key>aps-environment</key>
\t<string>development</string>
</dict>
</plist>

"""

/// A plist document around `body` (the contents of the root element).
@Suite("Entitlements", .dedicatedThreads)
struct EntitlementsTests {
    static let team = "A1B2C3D4E5"
    static let groupsKey = Entitlements.applicationGroupsKey
    static let keychainKey = Entitlements.keychainAccessGroupsKey
    static let appIDKey = Entitlements.applicationIdentifierKey

    @Test("an Xcode XML .entitlements file loads, expanding $(AppIdentifierPrefix) and $(TeamIdentifierPrefix)")
    func loadsXcodeFile() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("NotesShare.entitlements")
            try Data(xcodeEntitlements.utf8).write(to: file)
            let identity = try Entitlements(contentsOf: file, teamIdentifier: Self.team, bundleIdentifier: "ai.systenics.notes.share")
            #expect(identity.applicationIdentifier == "A1B2C3D4E5.ai.systenics.notes.share")
            #expect(identity.teamIdentifier == Self.team)
            #expect(identity.bundleIdentifier == "ai.systenics.notes.share")
            #expect(identity.applicationGroups.map(\.rawValue) == ["group.ai.systenics.notes", "A1B2C3D4E5.ai.systenics.shared"])
            #expect(identity.keychainAccessGroups == ["A1B2C3D4E5.ai.systenics.notes", "A1B2C3D4E5.com.example.vault"])
            #expect(identity.isEntitled(to: try GroupIdentifier("A1B2C3D4E5.ai.systenics.shared")))
            #expect(!identity.isEntitled(to: try GroupIdentifier("group.ai.systenics.other")))

            // The expanded Team-ID group resolves like any other.
            let root = dir.appendingPathComponent("root")
            let url = try ContainerResolver(root: root, entitlements: identity)
                .requireContainerURL(forSecurityApplicationGroupIdentifier: "A1B2C3D4E5.ai.systenics.shared")
            #expect(url.path == root.appendingPathComponent("A1B2C3D4E5.ai.systenics.shared").path)
        }
    }

    @Test("a binary plist with its own application-identifier loads too")
    func loadsBinaryWithApplicationIdentifier() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("App.entitlements")
            let dict: [String: Any] = [
                Self.appIDKey: "$(AppIdentifierPrefix)$(CFBundleIdentifier)",
                Self.groupsKey: ["group.ai.systenics.notes"],
            ]
            try PropertyListSerialization.data(fromPropertyList: dict, format: .binary, options: 0).write(to: file)
            let identity = try Entitlements(contentsOf: file, teamIdentifier: Self.team, bundleIdentifier: "ai.systenics.notes")
            #expect(identity.applicationIdentifier == "A1B2C3D4E5.ai.systenics.notes")
            #expect(identity.applicationGroups == [try GroupIdentifier("group.ai.systenics.notes")])
            #expect(identity.keychainAccessGroups == [])
        }
    }

    /// Malformed files: (what, contents, the key the error must name).
    static let malformed: [(String, String, String)] = [
        ("not a plist", "this is not a property list\n", "(file)"),
        ("an empty file", "", "(file)"),
        ("truncated XML", String(xcodeEntitlements.prefix(300)), "(file)"),
        ("an array root", plist("<array><string>group.a</string></array>"), "(root)"),
        ("a string root", plist("<string>group.a</string>"), "(root)"),
        ("groups as a string", plist("<dict><key>\(groupsKey)</key><string>group.a</string></dict>"), groupsKey),
        ("groups as a dictionary", plist("<dict><key>\(groupsKey)</key><dict/></dict>"), groupsKey),
        ("a group as a number", plist("<dict><key>\(groupsKey)</key><array><string>group.a</string><integer>7</integer></array></dict>"), groupsKey + "[1]"),
        ("an invalid group", plist("<dict><key>\(groupsKey)</key><array><string>group.a..b</string></array></dict>"), groupsKey),
        ("a group with a slash", plist("<dict><key>\(groupsKey)</key><array><string>group.a/../../x</string></array></dict>"), groupsKey),
        ("an unexpanded build setting", plist("<dict><key>\(groupsKey)</key><array><string>group.$(PRODUCT_NAME)</string></array></dict>"), groupsKey),
        ("keychain groups as a boolean", plist("<dict><key>\(keychainKey)</key><true/></dict>"), keychainKey),
        ("a keychain group as data", plist("<dict><key>\(keychainKey)</key><array><data>AAEC</data></array></dict>"), keychainKey + "[0]"),
        ("an application identifier as a number", plist("<dict><key>\(appIDKey)</key><integer>1</integer></dict>"), appIDKey),
        ("an application identifier of another app", plist("<dict><key>\(appIDKey)</key><string>A1B2C3D4E5.com.other</string></dict>"), appIDKey),
    ]

    @Test("a malformed entitlements file is invalidEntitlements naming the file and the key",
          arguments: malformed.indices)
    func malformedFile(index: Int) throws {
        let (what, contents, key) = Self.malformed[index]
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("Broken.entitlements")
            try Data(contents.utf8).write(to: file)
            let error = #expect(throws: AppGroupError.self, "\(what)") {
                try Entitlements(contentsOf: file, teamIdentifier: Self.team, bundleIdentifier: "ai.systenics.notes")
            }
            guard case let .invalidEntitlements(source, errorKey, problem)? = error else {
                Issue.record("\(what): expected invalidEntitlements, got \(String(describing: error))")
                return
            }
            #expect(source == file.path, "\(what)")
            #expect(errorKey == key, "\(what)")
            #expect(!problem.isEmpty)
            let message = error?.description ?? ""
            #expect(message.contains(file.path) && message.contains(key), "\(what): \(message)")
        }
    }

    @Test("a missing file, a bad Team ID and a file without an application identifier are typed errors")
    func otherFileErrors() throws {
        try withTemporaryDirectory { dir in
            let missing = dir.appendingPathComponent("Missing.entitlements")
            #expect(throws: AppGroupError.self) { try Entitlements(contentsOf: missing, teamIdentifier: Self.team, bundleIdentifier: "a.b") }
            let file = dir.appendingPathComponent("App.entitlements")
            try Data(xcodeEntitlements.utf8).write(to: file)
            let badTeam = #expect(throws: AppGroupError.self) { try Entitlements(contentsOf: file, teamIdentifier: "abc", bundleIdentifier: "a.b") }
            if case let .invalidEntitlements(source, key, _)? = badTeam {
                #expect(source == file.path && key == "(team identifier)")
            } else { Issue.record("got \(String(describing: badTeam))") }
            let noAppID = #expect(throws: AppGroupError.self) { try Entitlements(contentsOf: file, teamIdentifier: Self.team) }
            if case let .invalidEntitlements(_, key, _)? = noAppID { #expect(key == Self.appIDKey) } else { Issue.record("got \(String(describing: noAppID))") }
        }
    }

    @Test("identities built in code validate the application identifier and groups")
    func builtInCode() throws {
        let identity = try Entitlements(teamIdentifier: Self.team, bundleIdentifier: "ai.systenics.notes",
                                        applicationGroups: ["group.ai.systenics.notes", "group.ai.systenics.notes"])
        #expect(identity.applicationIdentifier == "A1B2C3D4E5.ai.systenics.notes")
        #expect(identity.applicationGroups.count == 1, "duplicates are kept once")
        for bad in ["ai.systenics.notes", "a1b2c3d4e5.ai.notes", "A1B2C3D4E5.", "A1B2C3D4E5.a..b", "A1B2C3D4E5.a/b", "A1B2C3D4E5.a b"] {
            #expect(throws: AppGroupError.self, "\(bad)") { try Entitlements(applicationIdentifier: bad) }
        }
        let badGroup = #expect(throws: AppGroupError.self) {
            try Entitlements(applicationIdentifier: "A1B2C3D4E5.a.b", applicationGroups: ["group.ok", "group.a b"])
        }
        if case let .invalidEntitlements(source, key, problem)? = badGroup {
            #expect(source == "code" && key == Self.groupsKey)
            #expect(problem.contains(GroupIdentifier.Rule.whitespace.explanation))
        } else { Issue.record("got \(String(describing: badGroup))") }
        #expect(throws: AppGroupError.self) {
            try Entitlements(applicationIdentifier: "A1B2C3D4E5.a.b", keychainAccessGroups: ["$(AppIdentifierPrefix)com.example.vault"])
        }
    }

    @Test("fromEnvironment(.environment) gives back the same identity")
    func environmentRoundTrip() throws {
        let identities = [
            try Entitlements(applicationIdentifier: "A1B2C3D4E5.ai.systenics.notes.share",
                             applicationGroups: ["group.ai.systenics.notes", "A1B2C3D4E5.ai.systenics.shared"],
                             keychainAccessGroups: ["A1B2C3D4E5.com.example.vault", "A1B2C3D4E5.ai.systenics.notes"]),
            try Entitlements(applicationIdentifier: "ZZZZZZZZZZ.solo"),
        ]
        for identity in identities {
            #expect(try Entitlements.fromEnvironment(identity.environment) == identity)
            // Merged over a parent that names an entitlements file, the identity still wins.
            let parent = [Entitlements.EnvironmentKey.entitlementsFile: "/nonexistent/Parent.entitlements",
                          Entitlements.EnvironmentKey.teamIdentifier: "QQQQQQQQQQ"]
            #expect(try Entitlements.fromEnvironment(parent.merging(identity.environment) { $1 }) == identity)
        }
        // The lists cross the environment comma-separated: a comma in a group is refused.
        #expect(throws: AppGroupError.self) {
            try Entitlements(applicationIdentifier: "A1B2C3D4E5.a.b", keychainAccessGroups: ["A1B2C3D4E5.x,y"])
        }
        #expect(try Entitlements.fromEnvironment([:]) == nil)
        #expect(try Entitlements.fromEnvironment(["PATH": "/bin"]) == nil)
    }

    @Test("fromEnvironment reads an entitlements file named by the environment")
    func environmentWithFile() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("Share.entitlements")
            try Data(xcodeEntitlements.utf8).write(to: file)
            let identity = try #require(try Entitlements.fromEnvironment([
                Entitlements.EnvironmentKey.entitlementsFile: file.path,
                Entitlements.EnvironmentKey.teamIdentifier: Self.team,
                Entitlements.EnvironmentKey.bundleIdentifier: "ai.systenics.notes.share",
            ]))
            #expect(identity == (try Entitlements(contentsOf: file, teamIdentifier: Self.team, bundleIdentifier: "ai.systenics.notes.share")))
            // The Team ID and bundle id may come from the application identifier instead.
            let same = try Entitlements.fromEnvironment([
                Entitlements.EnvironmentKey.entitlementsFile: file.path,
                Entitlements.EnvironmentKey.applicationIdentifier: "A1B2C3D4E5.ai.systenics.notes.share",
            ])
            #expect(same == identity)
            let noTeam = #expect(throws: AppGroupError.self) {
                try Entitlements.fromEnvironment([Entitlements.EnvironmentKey.entitlementsFile: file.path])
            }
            if case let .invalidEntitlements(source, key, _)? = noTeam {
                #expect(source == "environment" && key == Entitlements.EnvironmentKey.teamIdentifier)
            } else { Issue.record("got \(String(describing: noTeam))") }
        }
    }

    @Test("a malformed identity in the environment is invalidEntitlements naming the variable and key")
    func environmentMalformed() throws {
        let error = #expect(throws: AppGroupError.self) {
            try Entitlements.fromEnvironment([
                Entitlements.EnvironmentKey.applicationIdentifier: "A1B2C3D4E5.ai.systenics.notes",
                Entitlements.EnvironmentKey.applicationGroups: "group.ok, group.a/../b",
            ])
        }
        guard case let .invalidEntitlements(source, key, problem)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(source.contains(Entitlements.EnvironmentKey.applicationGroups))
        #expect(key == Self.groupsKey)
        #expect(problem.contains("group.a/../b"))
        #expect(throws: AppGroupError.self) {
            try Entitlements.fromEnvironment([Entitlements.EnvironmentKey.applicationIdentifier: "not-an-app-id"])
        }
    }
}
