// Keychain access groups carry the team: an identity listing another team's
// group is refused when it is loaded, from code, the environment or a file, and
// in a probe process (issue 12, part 6).
#if !canImport(Darwin)

import AppGroupContainer
import AppGroupTesting
import Foundation
@testable import SharedKeychain
import Testing
import TestSupport
import Security

@Suite("Keychain access groups carry the team (issue 12, part 6)", .tags(.multiprocess), .dedicatedThreads)
struct TeamRuleTests {
    static let foreignApp = "Z9Y8X7W6V5.com.other.reader"
    static let foreignGroup = "A1B2C3D4E5.com.example.vault"

    /// The refusal names the key, the offending group, the rule and the team.
    static func isTeamRuleRefusal(_ error: any Error, key: String = "keychain-access-groups[0]") -> Bool {
        guard case let .invalidEntitlements(_, errorKey, problem)? = error as? AppGroupError else { return false }
        return errorKey == key && problem.contains("\"\(foreignGroup)\"") && problem.contains("App ID prefix")
            && problem.contains("A1B2C3D4E5") && problem.contains("Z9Y8X7W6V5.")
    }

    @Test("from code: another team's group is refused; the own team's, App Groups and com.apple.token are not")
    func fromCode() throws {
        #expect(performing: {
            try Entitlements(applicationIdentifier: Self.foreignApp, keychainAccessGroups: [Self.foreignGroup])
        }, throws: { Self.isTeamRuleRefusal($0) })
        #expect(performing: {
            try Entitlements(applicationIdentifier: Self.foreignApp,
                             keychainAccessGroups: ["Z9Y8X7W6V5.com.other.shared", Self.foreignGroup])
        }, throws: { Self.isTeamRuleRefusal($0, key: "keychain-access-groups[1]") })
        // A group without any App ID prefix is refused as well: signing grants only PREFIX.*.
        #expect(throws: AppGroupError.self) {
            try Entitlements(applicationIdentifier: Self.foreignApp, keychainAccessGroups: ["com.example.vault"])
        }
        let allowed = try Entitlements(applicationIdentifier: Self.foreignApp,
                                       keychainAccessGroups: ["Z9Y8X7W6V5.com.other.shared", "group.com.other.suite", "com.apple.token"])
        #expect(allowed.keychainAccessGroups.count == 3)
    }

    @Test("from a decoded archive: the same rule, and an identity that passes it round-trips")
    func fromDecoder() throws {
        let crafted = Data(#"{"applicationIdentifier":"\#(Self.foreignApp)","applicationGroups":[],"keychainAccessGroups":["\#(Self.foreignGroup)"]}"#.utf8)
        #expect(performing: { try JSONDecoder().decode(Entitlements.self, from: crafted) }, throws: { Self.isTeamRuleRefusal($0) })
        let own = try Entitlements(applicationIdentifier: Self.foreignApp, applicationGroups: ["group.com.other.suite"],
                                   keychainAccessGroups: ["Z9Y8X7W6V5.com.other.shared"])
        #expect(try JSONDecoder().decode(Entitlements.self, from: JSONEncoder().encode(own)) == own)
    }

    @Test("from the environment and from an entitlements file")
    func fromEnvironmentAndFile() throws {
        let environment = [Entitlements.EnvironmentKey.applicationIdentifier: Self.foreignApp,
                           Entitlements.EnvironmentKey.keychainAccessGroups: "Z9Y8X7W6V5.com.other.shared,\(Self.foreignGroup)"]
        #expect(performing: { try Entitlements.fromEnvironment(environment) },
                throws: { Self.isTeamRuleRefusal($0, key: "keychain-access-groups[1]") })

        let box = try Sandbox()
        defer { box.remove() }
        let file = box.simulated.scratch.appendingPathComponent("Reader.entitlements")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>keychain-access-groups</key><array><string>\(Self.foreignGroup)</string></array>
            </dict></plist>
            """.utf8).write(to: file)
        #expect(performing: { try Entitlements(contentsOf: file, teamIdentifier: "Z9Y8X7W6V5", bundleIdentifier: "com.other.reader") },
                throws: { error in Self.isTeamRuleRefusal(error) && "\(error)".contains(file.path) })
        // The same file signed by the team that owns the group loads.
        #expect(try Entitlements(contentsOf: file, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.reader")
            .keychainAccessGroups == [Self.foreignGroup])
    }

    @Test("a probe process with another team's group in its environment reads nothing of that team: errSecNotAvailable and the rule on standard error")
    func probeWithForeignGroupIsRefused() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try box.keychain(Targets.app).add(Data("team secret".utf8), for: GenericPassword(service: "vault", account: "a", accessGroup: Self.foreignGroup))
        let environment = box.simulated.environment(identity: nil, extra: [
            Entitlements.EnvironmentKey.applicationIdentifier: Self.foreignApp,
            Entitlements.EnvironmentKey.keychainAccessGroups: Self.foreignGroup,
            KeychainDevice.environmentKey: box.device.name,
        ])
        let result = try Probe.run(["read", "--service", "vault", "--account", "a", "--group", Self.foreignGroup, "--expect", "team secret"], environment)
        #expect(result.stdout == "status=\(errSecNotAvailable)")
        #expect(result.stderr.contains(Self.foreignGroup) && result.stderr.contains("App ID prefix"))
        // The owning team's app, in a probe as well, still reads it.
        let owner = try Probe.run(["read", "--service", "vault", "--account", "a", "--group", Self.foreignGroup, "--expect", "team secret"],
                                  box.environment(Targets.app))
        #expect(owner.stdout == "status=0 match")
    }
}

#endif
