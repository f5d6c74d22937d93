import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedKeychain
import Testing
import DeviceTestSupport
import TestSupport

/// `keychain list/delete/reset` and `device lock/unlock/reboot/status`, through the
/// built binary, against items real app processes stored and read. A secret never
/// appears in any output.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct KeychainCLITests {
    let group = CLIFixture.group
    /// The session token the Notes app publishes (36 bytes), and a second secret.
    let token = "TOKEN-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
    let apiKey = "APIKEY-" + UUID().uuidString

    /// The Notes app process publishes its session token; this process adds an API key.
    func seeded() throws -> CLIFixture {
        let fixture = try CLIFixture()
        let published = try fixture.device.spawn(try CLIFixture.binary("ShareFlowDemo"),
                                                 ["app", "--group", group, "--publish-token", token], as: fixture.notes.app)
        #expect(published.succeeded, "\(published.standardError)")
        try Keychain(device: try KeychainDevice(root: fixture.device.root), identity: fixture.notes.app.entitlements)
            .save(Data(apiKey.utf8), for: GenericPassword(service: "api", account: "alice"), accessibility: .whenUnlocked)
        return fixture
    }

    /// The share extension process reads the token, as before it shares.
    func extensionReadsToken(_ fixture: CLIFixture) throws -> ProcessOutcome {
        try fixture.device.spawn(try CLIFixture.binary("ShareFlowDemo"),
                                 ["extension", "--group", group, "--url", "https://example.com/x", "--require-token"], as: fixture.notes.shareExtension)
    }

    /// Every form the secrets could leak in.
    func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [token, apiKey] {
            let data = Data(secret.utf8)
            for form in [secret, data.base64EncodedString(), data.map { String(format: "%02x", $0) }.joined()] {
                #expect(!text.contains(form), "a secret was printed: \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func listShowsAttributesAndSizesNeverSecrets() throws {
        let fixture = try seeded()
        let text = try fixture.succeed(["keychain", "list"])
        expectNoSecret(text)
        #expect(text.contains("kSecClassGenericPassword  service \"session\"  account \"active-user\""), "\(text)")
        #expect(text.contains("access group:   \(NotesExample.keychainAccessGroup)"))
        #expect(text.contains("accessibility:  kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"))
        #expect(text.contains("secret:         \(token.utf8.count) bytes (never shown)"))
        #expect(text.contains("service \"api\"  account \"alice\""))

        let jsonText = try fixture.succeed(["keychain", "list", "--json"])
        expectNoSecret(jsonText)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(jsonText.utf8)) as? [[String: Any]])
        #expect(items.count == 2)
        let session = try #require(items.first { $0["service"] as? String == "session" })
        #expect(session["class"] as? String == "genp")
        #expect(session["account"] as? String == "active-user")
        #expect(session["accessGroup"] as? String == NotesExample.keychainAccessGroup)
        #expect(session["synchronizable"] as? Bool == false)
        #expect(session["secretBytes"] as? Int == token.utf8.count)
        #expect(session["created"] is String && session["modified"] is String)

        let filtered = try fixture.succeed(["keychain", "list", "--group", "A1B2C3D4E5.other"])
        #expect(filtered.hasPrefix("no keychain items on simulated device \"default\""), "\(filtered)")
    }

    @Test func deleteRemovesWhatMatchesForEveryProcess() throws {
        let fixture = try seeded()
        #expect(try extensionReadsToken(fixture).succeeded)
        let deleted = try fixture.succeed(["keychain", "delete", "--service", "session", "--account", "active-user"])
        #expect(deleted.hasPrefix("deleted 1 item(s)\n"), "\(deleted)")
        expectNoSecret(deleted)
        let refused = try extensionReadsToken(fixture)
        #expect(refused.status == 1 && refused.standardError.contains("no session token"), "\(refused.standardError)")
        try fixture.fail(["keychain", "delete", "--service", "session"], status: 1, ["no keychain item matches", "errSecItemNotFound"])
        try fixture.fail(["keychain", "delete"], status: 64, ["at least one attribute"])
        try fixture.fail(["keychain", "delete", "--class", "cert"], status: 65, ["\"cert\" is not an item class"])
        try fixture.fail(["keychain", "delete", "--synchronizable", "perhaps"], status: 65, ["not a boolean"])
        try fixture.fail(["keychain", "fly"], status: 64, ["unknown keychain command 'fly'"])
        #expect(try KeychainDevice(root: fixture.device.root).itemCount() == 1, "the API key stays")

        let reset = try fixture.succeed(["keychain", "reset"])
        #expect(reset.hasPrefix("removed 1 item(s) from simulated device \"default\""), "\(reset)")
        #expect(try KeychainDevice(root: fixture.device.root).itemCount() == 0)
        #expect((try fixture.json(["keychain", "list"]) as? [Any])?.isEmpty == true)
    }

    @Test func deviceStateIsWhatDataProtectionFollowsInEveryProcess() throws {
        let fixture = try seeded()
        #expect(try fixture.succeed(["device", "status"]) == "default: unlocked\n")
        #expect(try fixture.succeed(["device", "reboot"]) == "default: locked, not unlocked since boot\n")
        // Before the first unlock an AfterFirstUnlock item cannot be read.
        let beforeUnlock = try extensionReadsToken(fixture)
        #expect(beforeUnlock.status == 1, "\(beforeUnlock.standardOutput) \(beforeUnlock.standardError)")
        expectNoSecret(beforeUnlock.standardOutput + beforeUnlock.standardError)
        #expect(try fixture.succeed(["device", "unlock"]) == "default: unlocked\n")
        #expect(try extensionReadsToken(fixture).standardOutput.contains("session token: \(token.utf8.count) bytes"))
        // Locked again after that first unlock: AfterFirstUnlock items stay readable.
        #expect(try fixture.succeed(["device", "lock"]) == "default: locked (unlocked since boot)\n")
        #expect(try extensionReadsToken(fixture).succeeded)
        #expect(try KeychainDevice(root: fixture.device.root).state() == DeviceState(isLocked: true, hasBeenUnlockedSinceBoot: true, isPasscodeSet: true))
        // The one state: what the SimulatedDevice reads is what the tool wrote.
        #expect(try fixture.device.state.condition.name == "locked")
        #expect(try fixture.succeed(["device", "state"]) == "default: locked (unlocked since boot)\n")
        // Orders iOS never makes are refused, naming the state; nothing changes.
        try fixture.fail(["device", "lock"], status: 1, ["refused to lock the device: it is locked (unlocked since boot)"])
        #expect(try fixture.succeed(["device", "unlock"]) == "default: unlocked\n")
        try fixture.fail(["device", "unlock"], status: 1, ["refused to unlock the device: it is unlocked"])
        try fixture.fail(["device", "fly"], status: 64, ["unknown device command 'fly'"])
        try fixture.fail(["device", "lock", "--device", "../x"], status: 64, ["device name"])
        try fixture.fail(["device", "lock", "--root", fixture.device.scratch.appendingPathComponent("absent").path], status: 1, ["no container root"])
    }
}
