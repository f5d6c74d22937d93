import Foundation
import ProbeSupport
#if !canImport(Darwin)
import Security

// Issue 27, item 4: code of the two shapes that use persistent references, written
// here in the probe's own words, as iOS code calls the SecItem functions.
//
//   profile-save --name N --secret S [--group G]
//                        a tunnel profile's secret, saved with its persistent reference
//                        returned (SecItemAdd, or update then find on a duplicate);
//                        prints status=N ref=HEX
//   profile-open --ref HEX [--expect S] [--no-class]
//                        the secret found by reference alone; status=N [match|mismatch]
//   profile-rotate --ref HEX --secret S   SecItemUpdate by reference; status=N
//   profile-forget --ref HEX              SecItemDelete by reference; status=N
//   store-set|store-get|store-delete --key K [--value V]; store-keys; store-clear
//                        a small key-value store over the keychain with a service and an
//                        access group (--group, --service), as apps copy in; prints its answers

/// A tunnel configuration's secret, stored so that the system can find it by
/// reference later (the reference is what the configuration keeps).
enum TunnelProfileSecrets {
    static let service = "com.example.tunnel.profile"

    static func save(name: String, secret: Data, accessGroup: String?) -> (OSStatus, Data?) {
        var item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: name,
        ]
        if let accessGroup { item[kSecAttrAccessGroup as String] = accessGroup }
        var add = item
        add[kSecValueData as String] = secret
        add[kSecReturnPersistentRef as String] = true
        var result: AnyObject?
        var status = SecItemAdd(add as CFDictionary, &result)
        if status == errSecDuplicateItem {
            status = SecItemUpdate(item as CFDictionary, [kSecValueData as String: secret] as CFDictionary)
            guard status == errSecSuccess else { return (status, nil) }
            var find = item
            find[kSecReturnPersistentRef as String] = true
            status = SecItemCopyMatching(find as CFDictionary, &result)
        }
        return (status, result as? Data)
    }

    static func open(reference: Data, namingClass: Bool) -> (OSStatus, Data?) {
        var query: [String: Any] = [kSecValuePersistentRef as String: reference, kSecReturnData as String: true]
        if namingClass { query[kSecClass as String] = kSecClassGenericPassword }
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result as? Data)
    }
}

/// A key-value store over the keychain, shared through an access group.
struct GroupKeychainStore {
    let service: String
    let accessGroup: String?

    private var base: [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    func allKeys() -> [String] {
        var query = base
        query[kSecReturnAttributes as String] = true
        query[kSecReturnPersistentRef as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
              let rows = result as? [[String: Any]] else { return [] }
        return rows.compactMap { row in
            guard row[kSecValuePersistentRef as String] is Data else { return nil }
            return row[kSecAttrAccount as String] as? String
        }.sorted()
    }

    func get(_ key: String) -> String? {
        var query = base
        query[kSecAttrAccount as String] = key
        query[kSecReturnData as String] = true
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        var query = base
        query[kSecAttrAccount as String] = key
        let data = Data(value.utf8)
        var add = query
        add[kSecValueData as String] = data
        add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        let status = SecItemAdd(add as CFDictionary, nil)
        if status == errSecDuplicateItem {
            return SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary) == errSecSuccess
        }
        return status == errSecSuccess
    }

    @discardableResult
    func delete(_ key: String) -> Bool {
        var query = base
        query[kSecAttrAccount as String] = key
        return SecItemDelete(query as CFDictionary) == errSecSuccess
    }

    @discardableResult
    func clear() -> Bool {
        let status = SecItemDelete(base as CFDictionary)
        return status == errSecSuccess || status == errSecItemNotFound
    }
}

func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

func bytes(hex: String) -> Data {
    var out = Data()
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
        guard let byte = UInt8(hex[index..<next], radix: 16) else { fail("--ref is not hexadecimal") }
        out.append(byte)
        index = next
    }
    return out
}

func runPersistentRefCommand(_ command: String) {
    switch command {
    case "profile-save":
        let (status, reference) = TunnelProfileSecrets.save(name: option("name"), secret: Data(option("secret").utf8),
                                                            accessGroup: optionalOption("group"))
        say("status=\(status)" + (reference.map { " ref=\(hex($0))" } ?? ""))
    case "profile-open":
        let (status, secret) = TunnelProfileSecrets.open(reference: bytes(hex: option("ref")),
                                                         namingClass: !CommandLine.arguments.contains("--no-class"))
        var line = "status=\(status)"
        if let expected = optionalOption("expect"), status == errSecSuccess { line += secret == Data(expected.utf8) ? " match" : " mismatch" }
        say(line)
    case "profile-rotate":
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: bytes(hex: option("ref"))]
        say("status=\(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data(option("secret").utf8)] as CFDictionary))")
    case "profile-forget":
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: bytes(hex: option("ref"))]
        say("status=\(SecItemDelete(query as CFDictionary))")
    default:
        let store = GroupKeychainStore(service: optionalOption("service") ?? "com.example.settings", accessGroup: optionalOption("group"))
        switch command {
        case "store-set": say("set \(store.set(option("value"), forKey: option("key")))")
        case "store-get": say("get \(store.get(option("key")) ?? "nil")")
        case "store-delete": say("delete \(store.delete(option("key")))")
        case "store-keys": say("keys \(store.allKeys().joined(separator: ","))")
        case "store-clear": say("clear \(store.clear())")
        default: fail("unknown command \(command)", code: 64)
        }
    }
}
#endif
