// The other product modules, each imported as a user imports it, under
// MemberImportVisibility: their extension members (SharedDefaults' Codable
// storage, ShareInbox's enqueue and pendingItems, Keychain's typed items) must be
// reachable with those imports and no others.
import AppGroupContainer
import AppGroupTesting
import Foundation
import ShareInbox
import SharedDefaults
import SharedKeychain
import Testing
import Security

@Suite("Import visibility: the product modules")
struct ProductModules {
    /// An app and its share extension in one group, made as a user makes them.
    static func targets() throws -> (app: SimulatedTarget, shareExtension: SimulatedTarget) {
        (try SimulatedTarget(name: "Notes", kind: .app, teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "ai.systenics.notes",
                             applicationGroups: [group]),
         try SimulatedTarget(name: "NotesShare", kind: .shareExtension, teamIdentifier: "A1B2C3D4E5",
                             bundleIdentifier: "ai.systenics.notes.share", applicationGroups: [group]))
    }

    static let group = "group.ai.systenics.notes"

    @Test("SharedDefaults' extension members, through the suite of a simulated target")
    func sharedDefaults() throws {
        try SimulatedDevice.with { device in
            let notes = try Self.targets()
            let suite = try #require(SharedDefaults(suiteName: Self.group, resolver: device.resolver(for: notes.app)))
            try suite.set(codable: ["a": 1], forKey: "codable")
            #expect(try suite.value([String: Int].self, forKey: "codable") == ["a": 1])
        }
    }

    @Test("ShareInbox's extension members: an item enqueued is pending")
    func shareInbox() throws {
        try SimulatedDevice.with { device in
            let notes = try Self.targets()
            let inbox = try ShareInbox(groupIdentifier: Self.group, resolver: device.resolver(for: notes.shareExtension))
            _ = try inbox.enqueue(SharedItem(url: URL(string: "https://example.com")!))
            #expect(try inbox.pendingItems().count == 1)
        }
    }

    @Test("SharedKeychain's SecItem vocabulary and Keychain's typed members")
    func sharedKeychain() throws {
        try SimulatedDevice.with { device in
            let notes = try Self.targets()
            let keychain = Keychain(device: try KeychainDevice(root: device.directory.appendingPathComponent("keychain")),
                                    identity: notes.app.entitlements)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "import-visibility",
                kSecAttrAccount as String: "user",
                kSecValueData as String: Data("secret".utf8),
            ]
            let status = Keychain.withCurrent(keychain) { SecItemAdd(query as CFDictionary, nil) }
            #expect(status == errSecSuccess)
            #expect(try keychain.read(GenericPassword(service: "import-visibility", account: "user")) == Data("secret".utf8))
        }
    }
}
