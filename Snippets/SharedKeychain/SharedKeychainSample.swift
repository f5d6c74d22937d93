// The samples of the SharedKeychain overview, compiled by `swift build`.
import AppGroupContainer
import SharedKeychain

// snippet.hide
let root = URL(fileURLWithPath: "/tmp/device")
let appEntitlements = try Entitlements(teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.vault",
                                       keychainAccessGroups: ["A1B2C3D4E5.com.example.vault"])
let token = "session-token"
// snippet.show
let device = try KeychainDevice(root: root)                 // <root>/Keychains/AccessGroups/<group>/default.keychain-db
let app = Keychain(device: device, identity: appEntitlements)
let session = GenericPassword(service: "session", account: "active-user", accessGroup: "A1B2C3D4E5.com.example.vault")
try app.save(Data(token.utf8), for: session, accessibility: .afterFirstUnlockThisDeviceOnly)

// In the share extension's process (identity from APP_GROUP_* variables):
let shared = try Keychain.fromEnvironment().readIfPresent(session)   // Data?
// An extension target without Keychain Sharing throws errSecMissingEntitlement (-34018),
// naming the group, the target and the fix, instead of reading nil.

import Security

let item: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrAccessGroup as String: "A1B2C3D4E5.com.example.vault",
    kSecAttrService as String: "session",
    kSecAttrAccount as String: "active-user",
    kSecValueData as String: Data(token.utf8),
]
let status = SecItemAdd(item as CFDictionary, nil)          // errSecSuccess, or Apple's code
