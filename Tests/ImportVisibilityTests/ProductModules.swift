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

@Suite("Import visibility: the product modules")
struct ProductModules {
    @Test("SharedDefaults' extension members, through the suite of a simulated target")
    func sharedDefaults() throws {
        try SimulatedDevice.with { device in
            let notes = try NotesExample()
            let suite = try #require(SharedDefaults(suiteName: NotesExample.groupIdentifier, resolver: device.resolver(for: notes.app)))
            try suite.set(codable: ["a": 1], forKey: "codable")
            #expect(try suite.value([String: Int].self, forKey: "codable") == ["a": 1])
        }
    }

    @Test("ShareInbox's extension members: an item enqueued is pending")
    func shareInbox() throws {
        try SimulatedDevice.with { device in
            let notes = try NotesExample()
            let inbox = try ShareInbox(groupIdentifier: NotesExample.groupIdentifier, resolver: device.resolver(for: notes.shareExtension))
            _ = try inbox.enqueue(SharedItem(url: URL(string: "https://example.com")!))
            #expect(try inbox.pendingItems().count == 1)
        }
    }

    @Test("SharedKeychain's SecItem vocabulary and Keychain's typed members")
    func sharedKeychain() throws {
        try SimulatedDevice.with { device in
            let notes = try NotesExample()
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
