#if !canImport(Darwin)
import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedKeychain
import Testing
import TestSupport
import Security

/// `device biometry` and the protection shown by `keychain list`, through the built
/// binary, against a Face ID protected item a real KeychainProbe process saved and
/// reads with the keychain guide's own code (`seed-save`, `seed-read`). The secret
/// never appears in any output.
@Suite(.tags(.multiprocess), .dedicatedThreads) struct BiometryCLITests {
    let secret = "CARD-" + UUID().uuidString
    static let guideReason = "Authenticate to access your saved information"

    /// A device whose Notes app process saved the guide's `.biometryCurrentSet` secret.
    func seeded() throws -> CLIFixture {
        let fixture = try CLIFixture()
        #expect(try probe(fixture, ["seed-save", "--account", "alice", "--secret", secret]) == "saved")
        return fixture
    }

    /// Runs KeychainProbe as the Notes app; returns its trimmed standard output.
    func probe(_ fixture: CLIFixture, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let outcome = try fixture.device.spawn(try CLIFixture.binary("KeychainProbe"), arguments, as: fixture.notes.app)
        #expect(outcome.succeeded, "KeychainProbe \(arguments): \(outcome.status) \(outcome.standardError)", sourceLocation: sourceLocation)
        expectNoSecret(outcome.standardOutput + outcome.standardError, sourceLocation: sourceLocation)
        return outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The guide's read of the secret in a new probe process.
    func read(_ fixture: CLIFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try probe(fixture, ["seed-read", "--account", "alice", "--expect", secret], sourceLocation: sourceLocation)
    }

    /// `appgroup arguments`, which must succeed and print no secret.
    @discardableResult
    func cli(_ fixture: CLIFixture, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let output = try fixture.succeed(arguments, sourceLocation: sourceLocation)
        expectNoSecret(output, sourceLocation: sourceLocation)
        return output
    }

    func status(_ fixture: CLIFixture) throws -> [String: Any] {
        let text = try cli(fixture, ["device", "biometry", "status", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func listed(_ fixture: CLIFixture) throws -> [[String: Any]] {
        let text = try cli(fixture, ["keychain", "list", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let data = Data(secret.utf8)
        for form in [secret, data.base64EncodedString(), data.map { String(format: "%02x", $0) }.joined()] {
            #expect(!text.contains(form), "the secret was printed: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func queuedOutcomesAnswerTheNextPromptsOfAnotherProcess() throws {
        let fixture = try seeded()
        #expect(try cli(fixture, ["device", "biometry", "next", "cancel"]) == "default: face-id, enrolled (enrolment 1), no failed matches, next: cancel\n")
        #expect(try read(fixture) == "threw unexpectedStatus(-128)")
        try cli(fixture, ["device", "biometry", "next", "match"])
        #expect(try read(fixture) == "match")
        // Nothing queued: answered as a system cancel, never waiting.
        #expect(try read(fixture) == "threw unexpectedStatus(-128)")

        // What the code under test asked, in order, with the guide's reason.
        let text = try cli(fixture, ["device", "biometry"])
        #expect(text.contains("    prompts shown:  3 (oldest first)\n"
            + "        biometry \"\(Self.guideReason)\": cancel\n"
            + "        biometry \"\(Self.guideReason)\": match\n"
            + "        biometry \"\(Self.guideReason)\": nothing queued (system cancel)\n"), "\(text)")
        #expect(text.contains("    next outcomes:  none queued"), "\(text)")
        let json = try status(fixture)
        let prompts = try #require(json["prompts"] as? [[String: Any]])
        #expect(prompts.map { $0["outcome"] as? String } == ["cancel", "match", nil])
        #expect(prompts[2]["outcome"] is NSNull)
        #expect(prompts.allSatisfy { $0["kind"] as? String == "biometry" && $0["reason"] as? String == Self.guideReason })
        #expect(json["type"] as? String == "face-id" && json["enrolled"] as? Bool == true && json["enrollmentGeneration"] as? Int == 1)
        #expect((json["next"] as? [String])?.isEmpty == true && json["passcodeSet"] as? Bool == true)

        // A reason is the app's text: quoted and escaped, it stays on its one line.
        try cli(fixture, ["device", "biometry", "next", "match"])
        #expect(try probe(fixture, ["evaluate", "--policy", "biometrics", "--reason", "two\nlines \"quoted\""]) == "success")
        #expect(try cli(fixture, ["device", "biometry"]).contains("        biometry \"two\\nlines \\\"quoted\\\"\": match\n"))
    }

    @Test func reEnrolmentInvalidatesTheItemAndTheListingSaysSo() throws {
        let fixture = try seeded()
        // A .userPresence item beside it, added by this process: it survives a new face.
        let keychain = Keychain(device: try KeychainDevice(root: fixture.device.root), identity: fixture.notes.app.entitlements)
        let added = Keychain.withCurrent(keychain) { () -> OSStatus in
            guard let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil) else { return errSecParam }
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "pin",
                                        kSecAttrAccount as String: "bob", kSecValueData as String: Data(secret.utf8),
                                        kSecAttrAccessControl as String: control]
            return SecItemAdd(query as CFDictionary, nil)
        }
        #expect(added == errSecSuccess)

        let before = try cli(fixture, ["keychain", "list"])
        #expect(before.contains("    access control: .biometryCurrentSet (bound to enrolment 1)\n    invalidated:    no\n"), "\(before)")
        #expect(before.contains("    access control: .userPresence\n    invalidated:    no\n"), "\(before)")

        #expect(try cli(fixture, ["device", "biometry", "re-enroll"]).hasPrefix("default: face-id, enrolled (enrolment 2)"))
        try cli(fixture, ["device", "biometry", "next", "match"])
        #expect(try read(fixture) == "threw unexpectedStatus(-25300)")
        #expect(try status(fixture)["next"] as? [String] == ["match"], "an invalidated item prompts for nothing")

        let after = try cli(fixture, ["keychain", "list"])
        #expect(after.contains("    access control: .biometryCurrentSet (bound to enrolment 1)\n    invalidated:    yes: the enrolled biometry changed"), "\(after)")
        #expect(after.contains("    access control: .userPresence\n    invalidated:    no\n"), "\(after)")
        let items = try listed(fixture)
        let guide = try #require(items.first { $0["account"] as? String == "alice" }?["accessControl"] as? [String: Any])
        #expect(guide["flags"] as? [String] == ["biometryCurrentSet"] && guide["boundEnrollment"] as? Int == 1 && guide["invalidated"] as? Bool == true)
        let pin = try #require(items.first { $0["account"] as? String == "bob" }?["accessControl"] as? [String: Any])
        #expect(pin["flags"] as? [String] == ["userPresence"] && pin["invalidated"] as? Bool == false && pin["boundEnrollment"] == nil)

        // Unenrolling and enrolling again is a new enrolment too; enrolling twice is not.
        #expect(try cli(fixture, ["device", "biometry", "unenroll"]) == "default: face-id, not enrolled, no failed matches, next: match\n")
        #expect(try cli(fixture, ["device", "biometry", "enroll"]).hasPrefix("default: face-id, enrolled (enrolment 4)"))
        #expect(try cli(fixture, ["device", "biometry", "enroll"]).hasPrefix("default: face-id, enrolled (enrolment 4)"))
        #expect(try cli(fixture, ["device", "biometry", "type", "touch-id"]).hasPrefix("default: touch-id, enrolled (enrolment 4)"))
        #expect(try cli(fixture, ["device", "biometry", "type", "none"]) == "default: no sensor (type none), next: match\n")
    }

    @Test func fiveFailedMatchesLockOutAndStatusSaysSo() throws {
        let fixture = try seeded()
        try cli(fixture, ["device", "biometry", "next"] + Array(repeating: "no-match", count: 5) + ["match"])
        for _ in 0..<5 { #expect(try read(fixture) == "threw unexpectedStatus(-25293)") }
        let text = try cli(fixture, ["device", "biometry", "status"])
        #expect(text.hasPrefix("default: face-id, enrolled (enrolment 1), locked out (5 failed matches), next: match\n"), "\(text)")
        #expect(text.contains("    failed matches: 5 of 5: locked out"), "\(text)")
        let json = try status(fixture)
        #expect(json["lockedOut"] as? Bool == true && json["failedMatches"] as? Int == 5 && json["lockoutThreshold"] as? Int == 5)
        // Locked out: the read fails without showing a prompt; the queued match stays.
        #expect(try read(fixture) == "threw unexpectedStatus(-25293)")
        #expect(try status(fixture)["next"] as? [String] == ["match"])
        #expect(try cli(fixture, ["device", "biometry", "reset"]) == "default: face-id, enrolled (enrolment 1), no failed matches, nothing queued\n")
        try cli(fixture, ["device", "biometry", "next", "match"])
        #expect(try read(fixture) == "match")
    }

    @Test func badWordsAreRefusedAndChangeNothing() throws {
        let fixture = try seeded()
        try fixture.fail(["device", "biometry", "next", "match", "maybe"], status: 65,
                         ["\"maybe\" is not an outcome", "match, no-match, cancel, fallback or system-cancel", "nothing was queued"])
        #expect((try status(fixture)["next"] as? [String])?.isEmpty == true, "the valid word before the bad one was not queued")
        try fixture.fail(["device", "biometry", "type", "iris"], status: 65, ["\"iris\" is not a biometry type", "none, touch-id or face-id"])
        try fixture.fail(["device", "biometry", "type"], status: 64, ["a biometry type"])
        try fixture.fail(["device", "biometry", "next"], status: 64, ["at least one outcome", "system-cancel"])
        try fixture.fail(["device", "biometry", "fly"], status: 64, ["unknown biometry command 'fly'", "re-enroll"])
        try fixture.fail(["device", "biometry", "status", "now"], status: 64, ["unexpected argument 'now'"])
        try fixture.fail(["device", "biometry", "next", "match", "--json"], status: 64, ["--json is for device biometry status only"])
        try fixture.fail(["device", "lock", "--json"], status: 64, ["--json is for device biometry status only"])
        try fixture.fail(["device", "biometry", "--device", "../x"], status: 64, ["device name"])
        try fixture.fail(["device", "biometry", "--root", fixture.device.scratch.appendingPathComponent("absent").path], status: 1, ["no container root"])
        #expect(try status(fixture)["type"] as? String == "face-id")
        // The queue is bounded, so the sensor file stays readable: all or nothing.
        try cli(fixture, ["device", "biometry", "next"] + Array(repeating: "match", count: 999))
        try fixture.fail(["device", "biometry", "next", "cancel", "cancel"], status: 65, ["exceed the 1000", "999 already queued", "nothing was queued"])
        #expect((try status(fixture)["next"] as? [String])?.count == 999)
        try cli(fixture, ["device", "biometry", "reset"])
        // Options may come before the subcommand too.
        #expect(try cli(fixture, ["device", "--device", "other", "biometry", "next", "cancel"]) == "other: face-id, enrolled (enrolment 1), no failed matches, next: cancel\n")
    }

    @Test(.tags(.hostile)) func aCraftedSensorFileIsReportedAndHidesNoUnprotectedItem() throws {
        let fixture = try CLIFixture()
        let device = try KeychainDevice(root: fixture.device.root)
        try Keychain(device: device, identity: fixture.notes.app.entitlements)
            .save(Data(secret.utf8), for: GenericPassword(service: "api", account: "carol"), accessibility: .whenUnlocked)
        try Data("<plist><dict><key>kind</key><integer>7</integer></dict></plist>".utf8).write(to: device.biometryURL)
        try fixture.fail(["device", "biometry"], status: 1, ["errSecInvalidKeychain", device.biometryURL.lastPathComponent, "move it aside"])
        try fixture.fail(["device", "biometry", "next", "match"], status: 1, ["errSecInvalidKeychain"])
        // The listing reads the sensor only for an item whose invalidation depends on it.
        #expect(try listed(fixture).count == 1)
        try FileManager.default.removeItem(at: device.biometryURL)
        #expect(try probe(fixture, ["seed-save", "--account", "alice", "--secret", secret]) == "saved")
        try Data("garbage".utf8).write(to: device.biometryURL)
        try fixture.fail(["keychain", "list"], status: 1, ["errSecInvalidKeychain"])
        // A delete is not undone by the damaged sensor: it removes the item and says so.
        #expect(try cli(fixture, ["keychain", "delete", "--account", "alice"]).hasPrefix("deleted 1 item(s)\n"))
        #expect(try listed(fixture).count == 1)
    }
}
#endif
