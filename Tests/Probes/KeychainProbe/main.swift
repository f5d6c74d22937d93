import AppGroupContainer
import Foundation
import ProbeSupport
import SharedKeychain
import Security

// On Darwin the SecItem functions are Apple's own: this probe would read and
// write the user's real keychain, so there it only says why it does not run.
#if !canImport(Darwin)

// A helper process for the multi-process keychain tests. Its identity (entitlements),
// root and device come from the environment (see Keychain.fromEnvironment), exactly
// as for an app or extension process; each command does one thing and reports on
// stdout. Values are never printed: `--expect` compares and prints match/mismatch.
//
//   add --service S --account A [--group G] [--value V] [--accessible pdmn] [--sync]
//                                         SecItemAdd; prints status=N
//   read --service S --account A [--group G] [--expect V] [--sync any|true]
//                                         SecItemCopyMatching; prints status=N [match|mismatch]
//   publish-session-token --token T       a typical app's publishSessionToken; prints status=N
//   read-session-token [--group G] --expect T
//                                         a typical extension's readSessionTokenInExtension query; status=N match
//   add-many --prefix P --count N         N adds of distinct accounts; prints added=N
//   count                                 prints visible=N (items this identity can see)
//   device lock|unlock|reboot|passcode-on|passcode-off
//                                         changes the simulated device state; prints it
//   hold-lock                             takes the keychain's write lock, prints "locked", sleeps
//   delete --service S --account A        SecItemDelete; prints status=N
//   seed-save, seed-read, biometry, evaluate
//                                         protected items and the sensor: see ProtectedCommands.swift
//   tamper-state, tamper-biometry, tamper-keychain --find S
//                                         writes the device's files directly: see TamperCommands.swift
//   add-until-killed --prefix P [--size N] adds P-0, P-1, ... (N-byte values) printing "acked P-i" after each
//                                         success, until killed (the kill-storm tests)

/// A typical app's SharedVault (written against Security), with the group overridable for the table's cases.
enum SharedVault {
    static let group = ProcessInfo.processInfo.environment["PROBE_VAULT_GROUP"] ?? "A1B2C3D4E5.com.example.vault"
    static let service = "com.example.vault.session"
}

// Such an app's function, unchanged but for its return of the status.
func publishSessionToken(_ token: Data) -> OSStatus {
    let identity: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccessGroup as String: SharedVault.group,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccount as String: "active-user"
    ]
    var insert = identity
    insert[kSecValueData as String] = token
    insert[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly

    let added = SecItemAdd(insert as CFDictionary, nil)
    guard added == errSecDuplicateItem else { return added }   // -34018: entitlement missing
    let changes: [String: Any] = [kSecValueData as String: token]
    return SecItemUpdate(identity as CFDictionary, changes as CFDictionary)
}

func report(_ status: OSStatus, found: CFTypeRef?) {
    var line = "status=\(status)"
    if let expected = optionalOption("expect"), status == errSecSuccess {
        line += (found as? Data) == Data(expected.utf8) ? " match" : " mismatch"
    }
    say(line)
}

let command = CommandLine.arguments.dropFirst().first ?? ""
switch command {
case "add":
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: option("service"),
        kSecAttrAccount as String: option("account"),
        kSecValueData as String: Data((optionalOption("value") ?? "").utf8),
    ]
    if let group = optionalOption("group") { query[kSecAttrAccessGroup as String] = group }
    if let accessible = optionalOption("accessible") { query[kSecAttrAccessible as String] = accessible }
    if CommandLine.arguments.contains("--sync") { query[kSecAttrSynchronizable as String] = true }
    say("status=\(SecItemAdd(query as CFDictionary, nil))")
case "read":
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: option("service"),
        kSecAttrAccount as String: option("account"),
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne,
    ]
    if let group = optionalOption("group") { query[kSecAttrAccessGroup as String] = group }
    switch optionalOption("sync") {
    case "any": query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
    case "true": query[kSecAttrSynchronizable as String] = true
    default: break
    }
    var found: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &found)
    report(status, found: found)
case "publish-session-token":
    say("status=\(publishSessionToken(Data(option("token").utf8)))")
case "read-session-token":
    // The extension's readSessionTokenInExtension query, reporting its status.
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccessGroup as String: optionalOption("group") ?? SharedVault.group,
        kSecAttrService as String: SharedVault.service,
        kSecAttrAccount as String: "active-user",
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne
    ]
    var found: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &found)
    report(status, found: found)
case "add-many":
    let prefix = option("prefix")
    guard let count = Int(option("count")) else { fail("--count must be an integer") }
    for i in 0..<count {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "race",
            kSecAttrAccount as String: "\(prefix)-\(i)",
            kSecValueData as String: Data("v\(i)".utf8),
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else { fail("add \(prefix)-\(i) returned \(status)") }
    }
    say("added=\(count)")
case "count":
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        kSecReturnAttributes as String: true,
        kSecMatchLimit as String: kSecMatchLimitAll,
    ]
    var found: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &found)
    if status == errSecItemNotFound { say("visible=0") } else if status == errSecSuccess {
        say("visible=\((found as? [[String: Any]])?.count ?? -1)")
    } else { say("status=\(status)") }
case "device":
    do {
        let device = try KeychainDevice.fromEnvironment()
        switch CommandLine.arguments.dropFirst(2).first ?? "" {
        case "lock": try device.lock()
        case "unlock": try device.unlock()
        case "reboot": try device.reboot()
        case "passcode-on": try device.setPasscode(true)
        case "passcode-off": try device.setPasscode(false)
        default: fail("device needs lock, unlock, reboot, passcode-on or passcode-off", code: 64)
        }
        say("state=\(try device.state())")
    } catch {
        fail("\(error)")
    }
case "hold-lock":
    do {
        let device = try KeychainDevice.fromEnvironment()
        try FileCoordinator().coordinate(writingItemAt: device.writeLockURL) { _ in
            say("locked")
            while true { sleep(60) }
        }
    } catch {
        fail("\(error)")
    }
case "delete":
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: option("service"),
        kSecAttrAccount as String: option("account"),
    ]
    say("status=\(SecItemDelete(query as CFDictionary))")
case "add-until-killed":
    let prefix = option("prefix")
    let size = Int(optionalOption("size") ?? "") ?? 0
    var i = 0
    while true {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "storm",
            kSecAttrAccount as String: "\(prefix)-\(i)",
            kSecValueData as String: Data("secret-\(prefix)-\(i)".utf8) + Data(repeating: 0x53, count: size),
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else { fail("add \(prefix)-\(i) returned \(status)") }
        say("acked \(prefix)-\(i)")
        i += 1
    }
case "profile-save", "profile-open", "profile-rotate", "profile-forget",
     "store-set", "store-get", "store-delete", "store-keys", "store-clear":
    // Persistent references: PersistentRefCommands.swift.
    runPersistentRefCommand(command)
case "tamper-state", "tamper-biometry", "tamper-keychain", "tamper-keychain-tree":
    // A hostile target writing the device's files directly: TamperCommands.swift.
    runTamperCommand(command)
case "seed-save", "seed-read", "biometry", "evaluate":
    // Protected items and the simulated sensor: ProtectedCommands.swift.
    runProtectedCommand(command)
default:
    fail("unknown command \(command.isEmpty ? "(none)" : command); see the comment at the top of main.swift", code: 64)
}
#else
fail("KeychainProbe drives the SecItem functions, which on Darwin are Apple's and reach your real keychain; it runs where the emulator provides them (Linux)", code: 69)
#endif
