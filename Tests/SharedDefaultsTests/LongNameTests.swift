import AppGroupContainer
import AppGroupTesting
import Foundation
import SharedDefaults
import Testing
import TestSupport
import DeviceTestSupport

/// Every name derived from a valid identifier or suite name
/// (the suite file, its lock file, its temporaries) fits the 255-byte limit of a
/// file name, at the longest valid group identifier and suite name, with real
/// processes writing at once; and the shortened lock still excludes.
@Suite("Names at their length limits", .tags(.multiprocess), .dedicatedThreads)
struct LongNameTests {
    /// The longest valid group identifier: 255 bytes.
    static let longestGroup = "group." + String(repeating: "l", count: 120) + "." + String(repeating: "g", count: 128)
    /// The longest plain suite name SharedDefaults accepts: 200 bytes, two-byte characters included.
    static let longestSuite = String(repeating: "\u{E9}", count: 50) + String(repeating: "s", count: 100)

    static let perProcess = 150

    /// Two DefaultsProbe processes increment `key` of `suite` at once; returns the final value.
    func race(_ sandbox: Sandbox, identity: Entitlements, suite: String) throws -> Int? {
        let probe = try #require(SimulatedDevice.builtExecutable(named: "DefaultsProbe"), "DefaultsProbe is not built beside the test bundle")
        let children = try (0..<2).map { _ in
            try LaunchedProcess(executable: probe, arguments: ["increment", "--suite", suite, "--key", "count", "--count", String(Self.perProcess)],
                      environment: sandbox.environment(identity))
        }
        for child in children {
            let end = child.wait(timeout: 120)
            #expect(end.status == 0 && end.standardOutput.contains("done"), "a writer failed: \(end.standardError)")
        }
        let defaults = try SharedDefaults(requiringSuiteName: suite, resolver: sandbox.resolver(identity))
        return try defaults.load(forKey: "count") as? Int
    }

    /// Every name under `directory` fits in 255 bytes.
    func expectNamesFit(_ directory: URL) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            #expect(name.utf8.count <= 255, "\(name.utf8.count) bytes: \(name)")
        }
    }

    @Test("the longest group identifier: 2 processes x 150 updates of its suite end exact")
    func longestGroupIdentifier() throws {
        try #require(Self.longestGroup.utf8.count == 255 && GroupIdentifier(validating: Self.longestGroup) != nil)
        let sandbox = try Sandbox()
        let identity = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.long", applicationGroups: [Self.longestGroup])
        #expect(try race(sandbox, identity: identity, suite: Self.longestGroup) == 2 * Self.perProcess)
        let preferences = sandbox.root.appendingPathComponent(Self.longestGroup + "/Library/Preferences")
        expectNamesFit(preferences)
        // The suite file's name follows the documented rule, so a peer finds it.
        let expected = FileNames.fitted(Self.longestGroup + ".plist", keepingSuffix: ".plist")
        #expect(FileManager.default.fileExists(atPath: preferences.appendingPathComponent(expected).path))
        #expect(expected.utf8.count == 255 && expected.hasSuffix(".plist"))
        report("longest group identifier (255 bytes): 2 x \(Self.perProcess) updates -> exact; suite file name \(expected.utf8.count) bytes")
    }

    @Test("the longest suite name: 2 processes x 150 updates end exact")
    func longestSuiteName() throws {
        try #require(Self.longestSuite.utf8.count == 200)
        let sandbox = try Sandbox()
        #expect(try race(sandbox, identity: sandbox.app, suite: Self.longestSuite) == 2 * Self.perProcess)
        expectNamesFit(sandbox.root.appendingPathComponent("Applications/ai.systenics.reliability/Library/Preferences"))
    }
}
