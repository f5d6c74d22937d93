// On Darwin these calls would be Apple's own (the real containers, keychain and
// preferences): the probe is Linux-only (main.swift).
#if !canImport(Darwin)
import AppGroupContainer
import Foundation
import ProbeSupport
import SharedDefaults
import class SharedDefaults.UserDefaults
import SharedKeychain
import Security

/// The scenarios, each in a process with no scope but its own: hopped work has
/// exactly the candidates the scenario makes.
enum Scenarios {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func groupContainer() throws -> URL {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Targets.suite) else {
            throw Failure(description: "containerURL(forSecurityApplicationGroupIdentifier: \(Targets.suite)) returned nil")
        }
        return url
    }

    static func vaultItem(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.scopes",
         kSecAttrAccount as String: account, kSecAttrAccessGroup as String: Targets.vault]
    }

    /// The share extension's code, unchanged wherever it runs: a file in the
    /// container, a value in the group's suite, a keychain item.
    static func extensionSaves(_ tag: String) throws -> String {
        let container = try groupContainer()
        try Data(tag.utf8).write(to: container.appendingPathComponent("\(tag).txt"))
        try SharedDefaults(requiringSuiteName: Targets.suite).set("from \(tag)", forKey: tag)
        var add = vaultItem(tag)
        add[kSecValueData as String] = Data(tag.utf8)
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw Failure(description: "SecItemAdd returned \(status)") }
        return container.path
    }

    /// The app's code reading it back.
    static func appReads(_ tag: String) throws -> [String] {
        let container = try groupContainer()
        let file = try String(contentsOf: container.appendingPathComponent("\(tag).txt"), encoding: .utf8)
        let value = try SharedDefaults(requiringSuiteName: Targets.suite).string(forKey: tag) ?? "none"
        var query = vaultItem(tag)
        query[kSecReturnData as String] = true
        var found: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &found)
        return [container.path, file, value, "\(status)", (found as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "none"]
    }

    /// As the share extension, then as the app, each from every hop; then targets
    /// without the group or Keychain Sharing get iOS's answers from hops too.
    static func extensionThenApp() throws {
        for hop in Hop.allCases {
            let tag = "draft-\(hop.rawValue)"
            let written = try Targets.scope(Targets.share).run { try hop.run { try extensionSaves(tag) } }
            let read = try Targets.scope(Targets.app).run { try hop.run { try appReads(tag) } }
            let notify = try Targets.scope(Targets.notify).run {
                try hop.run { () -> OSStatus in
                    var query = vaultItem(tag)
                    query[kSecReturnData as String] = true
                    return SecItemCopyMatching(query as CFDictionary, nil)
                }
            }
            let stranger = try Targets.scope(Targets.stranger).run {
                try hop.run { FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Targets.suite)?.path }
            }
            say("\(hop.rawValue) written=\(written) read=\(read.joined(separator: "|")) notify=\(notify) stranger=\(stranger ?? "nil")")
        }
    }

    /// `Keychain.withCurrent` reaches a GCD hop.
    static func withCurrent() throws {
        let device = try KeychainDevice(root: URL(fileURLWithPath: option("root"), isDirectory: true), name: "phone")
        let status = try Keychain.withCurrent(Keychain(device: device, identity: Targets.share)) {
            try Hop.dispatchQueue.run { () -> OSStatus in
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
                return SecItemCopyMatching(query as CFDictionary, nil)
            }
        }
        say("status=\(status)")
    }

    /// Nested scopes, seen from hops: the inner one holds until it ends.
    static func nested() throws {
        let seen = try Targets.scope(Targets.app).run { () -> [String] in
            var seen = [try Hop.thread.run { try Entitlements.current().bundleIdentifier }]
            seen += try Targets.scope(Targets.share).run {
                [try Entitlements.current().bundleIdentifier, try Hop.operationQueue.run { try Entitlements.current().bundleIdentifier }]
            }
            seen.append(try Hop.dispatchQueue.run { try Entitlements.current().bundleIdentifier })
            return seen
        }
        say("nested=\(seen.joined(separator: ","))")
    }

    /// The widget's code: its own defaults, the group's container, who it is.
    static func widgetWork(key: String) -> String {
        let defaults = UserDefaults.standard
        defaults.set("from the widget", forKey: key)
        let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Targets.suite)?.path ?? "nil"
        let bundle: String
        do {
            bundle = try Entitlements.current().bundleIdentifier
        } catch AppGroupError.identityScopeConflict(let conflict) {
            let targets = conflict.scopes.map(\.entitlements.bundleIdentifier).sorted().joined(separator: ",")
            bundle = "refused(\(conflict.kind),\(targets))"
        } catch {
            bundle = "error(\(error))"
        }
        let refused = defaults.lastError.map { "\($0)".contains("refused to say who is calling") } ?? false
        return "bundle=\(bundle) container=\(container) standardRefused=\(refused)"
    }

    /// An asynchronous scope alone in the process: its hopped work is its own.
    static func asyncAlone() async {
        await Targets.scope(Targets.widget).run {
            await Task.yield()
            for hop in Hop.allCases {
                let seen = (try? hop.run { widgetWork(key: "alone-\(hop.rawValue)") }) ?? "hop failed"
                say("\(hop.rawValue) \(seen)")
            }
        }
    }

    /// An asynchronous scope of the widget beside a synchronous scope of the app
    /// (held on a thread): the widget's hopped work is refused, naming both; carried
    /// explicitly, it is the widget's; run as no scope, it is nobody's.
    static func asyncBesideSync() async {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread {
            Targets.scope(Targets.app).run {
                holding.signal()
                _ = release.wait(timeout: .now() + 60)
            }
            released.signal()
        }.start()
        guard holding.wait(timeout: .now() + 60) == .success else { fail("the app's scope was not entered") }
        await Targets.scope(Targets.widget).run {
            await Task.yield()
            let scope: IdentityScope?
            do { scope = try IdentityScope.active } catch { fail("the widget's own task was refused: \(error)") }
            for hop in Hop.allCases {
                let refused = (try? hop.run { widgetWork(key: "beside-\(hop.rawValue)") }) ?? "hop failed"
                say("\(hop.rawValue) \(refused)")
                let carried = (try? hop.run { IdentityScope.run(scope) { widgetWork(key: "carried-\(hop.rawValue)") } }) ?? "hop failed"
                say("\(hop.rawValue) carried \(carried)")
                let none = (try? hop.run { IdentityScope.run(nil) { (try? IdentityScope.active).map { "\($0)" } ?? "none" } }) ?? "hop failed"
                say("\(hop.rawValue) unscoped \(none)")
            }
        }
        release.signal()
        _ = released.wait(timeout: .now() + 60)
    }
}
#endif
