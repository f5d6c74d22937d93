// The keychain idioms of everyday iOS code, each as written on iOS, run against
// the emulator through the global functions (issue 12, part 4).
#if !canImport(Darwin)

// The switch iOS code uses to share a file between platforms: here it takes the
// first branch, since this package offers a Security module on Linux.
#if canImport(Security)
import AppGroupTesting
import Security
#else
import SharedKeychain
#endif
#if canImport(LocalAuthentication)
import LocalAuthentication
#endif
import AppGroupContainer
import Testing

@Suite("Keychain idioms of iOS code, unchanged (issue 12, part 4)", .dedicatedThreads)
struct IdiomTests {
    static let service = "com.example.idioms"

    @Test("#if canImport(Security) takes the Security branch on Linux, as on iOS, and that module is the emulator")
    func canImportSecuritySwitch() throws {
        #if canImport(Security)
        let branch = "Security"
        #else
        let branch = "SharedKeychain"
        #endif
        #expect(branch == "Security")
        let box = try Sandbox()
        defer { box.remove() }
        // The SecItemAdd this file sees (through `import Security`) writes to the emulated device.
        asProcess(box.keychain(Targets.app)) {
            let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "branch",
                                      kSecValueData as String: Data("v".utf8)]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        }
        #expect(try box.device.itemCount() == 1)
    }

    @Test("kCFBooleanTrue! and kCFBooleanTrue as Any in a query are booleans")
    func booleanConstants() throws {
        let box = try Sandbox()
        defer { box.remove() }
        asProcess(box.keychain(Targets.app)) {
            let add: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
                kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8),
                kSecAttrSynchronizable as String: kCFBooleanTrue as Any,
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
                kSecAttrSynchronizable as String: kCFBooleanTrue!, kSecReturnData as String: kCFBooleanTrue!,
            ]
            var found: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess)
            #expect(found as? Data == Data("v".utf8))
            // False excludes the synchronizable item: the engine read the value, not just the key.
            var excluded = query
            excluded[kSecAttrSynchronizable as String] = kCFBooleanFalse!
            #expect(SecItemCopyMatching(excluded as CFDictionary, &found) == errSecItemNotFound)
        }
    }

    @Test("a [CFString: Any] query cast to CFDictionary, compared with noErr")
    func cfStringKeyedQueryAndNoErr() throws {
        let box = try Sandbox()
        defer { box.remove() }
        asProcess(box.keychain(Targets.app)) {
            let add: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrService: Self.service, kSecAttrAccount: "cf",
                kSecValueData: Data("cf-value".utf8),
            ]
            let status = SecItemAdd(add as CFDictionary, nil)
            #expect(status == noErr)
            let query: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrService: Self.service, kSecAttrAccount: "cf",
                kSecReturnData: true, kSecMatchLimit: kSecMatchLimitOne,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == noErr)
            #expect(result as? Data == Data("cf-value".utf8))
            #expect(SecItemDelete(query as CFDictionary) != noErr)   // kSecReturnData in a delete is -50
            #expect(SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "cf"] as CFDictionary) == noErr)
        }
    }

    @Test("results cast as Data, NSData, [String: Any], NSDictionary, [[String: Any]] and NSArray")
    func resultCasts() throws {
        let box = try Sandbox()
        defer { box.remove() }
        try asProcess(box.keychain(Targets.app)) {
            for account in ["one", "two", "three"] {
                let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
                                          kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            }
            let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service]
            var result: CFTypeRef?

            var one = base
            one[kSecAttrAccount as String] = "two"
            one[kSecReturnData as String] = true
            #expect(SecItemCopyMatching(one as CFDictionary, &result) == errSecSuccess)
            #expect((result as? NSData).map { Data(referencing: $0) } == Data("two".utf8))
            #expect(result as? Data == Data("two".utf8))

            one[kSecReturnAttributes as String] = true
            #expect(SecItemCopyMatching(one as CFDictionary, &result) == errSecSuccess)
            let attributes = try #require(result as? [String: Any])
            #expect(attributes[kSecAttrAccount as String] as? String == "two")
            #expect(attributes[kSecValueData as String] as? Data == Data("two".utf8))
            #expect((result as? NSDictionary)?[kSecAttrService as String] as? String == Self.service)

            var all = base
            all[kSecMatchLimit as String] = kSecMatchLimitAll
            all[kSecReturnAttributes as String] = true
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
            let items = try #require(result as? [[String: Any]])
            #expect(items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted() == ["one", "three", "two"])
            #expect(items.allSatisfy { $0[kSecValueData as String] == nil })   // attributes only, as asked
            #expect((result as? NSArray)?.count == 3)

            all[kSecReturnAttributes as String] = false
            all[kSecReturnData as String] = true
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [Data])?.count == 3)
        }
    }

    static let allClasses = [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassCertificate, kSecClassKey, kSecClassIdentity]

    @Test("keys, certificates and identities are stored, found and deleted; the sign-out loop over all five classes empties the keychain")
    func signOutLoopOverAllFiveClasses() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let items: [[String: Any]] = [
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service, kSecAttrAccount as String: "u"],
            [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecAttrAccount as String: "u"],
            [kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "leaf", kSecAttrCertificateType as String: 3,
             kSecAttrIssuer as String: Data("issuer".utf8), kSecAttrSerialNumber as String: Data([1, 2, 3])],
            [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
             kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
             kSecAttrApplicationTag as String: Data("com.example.keys.signing".utf8), kSecAttrCanSign as String: true],
            [kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "me", kSecAttrIssuer as String: Data("ca".utf8),
             kSecAttrSerialNumber as String: Data([9]), kSecAttrKeyClass as String: kSecAttrKeyClassPrivate],
        ]
        asProcess(box.keychain(Targets.app)) {
            for item in items {
                var add = item
                add[kSecValueData as String] = Data("secret bytes".utf8)
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess, "\(item[kSecClass as String] ?? "")")
                // The class's primary key makes a second add a duplicate.
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem, "\(item[kSecClass as String] ?? "")")
            }
            // Found by class and a class attribute, with the class's attributes handed back.
            let keyQuery: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.example.keys.signing".utf8),
                                           kSecReturnAttributes as String: true, kSecReturnData as String: true]
            var found: CFTypeRef?
            #expect(SecItemCopyMatching(keyQuery as CFDictionary, &found) == errSecSuccess)
            let key = found as? [String: Any]
            #expect(key?[kSecAttrKeySizeInBits as String] as? Int == 256)
            #expect(key?[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeECSECPrimeRandom)
            #expect(key?[kSecValueData as String] as? Data == Data("secret bytes".utf8))
            // A password attribute on a key is errSecNoSuchAttr, as on iOS.
            let wrong: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrService as String: "x"]
            #expect(SecItemCopyMatching(wrong as CFDictionary, nil) == errSecNoSuchAttr)
        }
        #expect(try box.device.itemCount() == 5)

        // The usual sign-out: delete every class, ignoring "nothing there".
        asProcess(box.keychain(Targets.app)) {
            for itemClass in Self.allClasses {
                let status = SecItemDelete([kSecClass as String: itemClass] as CFDictionary)
                #expect(status == errSecSuccess || status == errSecItemNotFound)
            }
            for itemClass in Self.allClasses {
                #expect(SecItemCopyMatching([kSecClass as String: itemClass] as CFDictionary, nil) == errSecItemNotFound)
            }
        }
        #expect(try box.device.itemCount() == 0)
    }

    @Test("kSecAttrAccessControl as String and kSecUseAuthenticationContext: the item is stored with its access control, returned with its attributes, and refused beside kSecAttrAccessible")
    func accessControlIdiom() throws {
        let box = try Sandbox()
        defer { box.remove() }
        var error: Unmanaged<CFError>?
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, &error))
        #expect(access.flags == .biometryCurrentSet)
        #expect(SecAccessControlCreateWithFlags(nil, "not a class", .userPresence, &error) == nil)
        #expect(error?.takeRetainedValue().code == Int(errSecParam))
        try box.device.scriptBiometry([.match])
        asProcess(box.keychain(Targets.app)) {
            let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
                                      kSecAttrAccount as String: "bio", kSecValueData as String: Data("v".utf8),
                                      kSecAttrAccessControl as String: access]
            var both = add
            both[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
            #expect(SecItemAdd(both as CFDictionary, nil) == errSecParam)
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            // Attributes only: no prompt, and the access control comes back.
            let attributes: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bio",
                                             kSecReturnAttributes as String: true]
            var found: AnyObject?
            #expect(SecItemCopyMatching(attributes as CFDictionary, &found) == errSecSuccess)
            #expect(((found as? [String: Any])?[kSecAttrAccessControl as String] as? SecAccessControl)?.flags == .biometryCurrentSet)
            // The data, through an LAContext: one prompt, answered by the scripted match.
            let read: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bio",
                                       kSecReturnData as String: true,
                                       kSecUseAuthenticationContext as String: LAContext(simulatedDevice: box.device)]
            var data: AnyObject?
            #expect(SecItemCopyMatching(read as CFDictionary, &data) == errSecSuccess)
            #expect(data as? Data == Data("v".utf8))
        }
        #expect(try box.device.itemCount() == 1)
        #expect(try box.device.biometry().presentedPrompts.count == 1)
    }

    @Test("SecCopyErrorMessageString gives Apple's message for every status the emulator returns")
    func errorMessages() {
        let expected: [OSStatus: String] = [
            errSecSuccess: "No error.",
            errSecUnimplemented: "Function or operation not implemented.",
            errSecIO: "I/O error.",
            errSecParam: "One or more parameters passed to a function were not valid.",
            errSecNotAvailable: "No keychain is available. You may need to restart your computer.",
            errSecInvalidKeychain: "The specified keychain is not a valid keychain file.",
            errSecDuplicateItem: "The specified item already exists in the keychain.",
            errSecItemNotFound: "The specified item could not be found in the keychain.",
            errSecNoSuchAttr: "The specified attribute does not exist.",
            errSecInteractionNotAllowed: "User interaction is not allowed.",
            errSecMissingEntitlement: "A required entitlement isn't present.",
        ]
        for (status, message) in expected {
            #expect(SecCopyErrorMessageString(status, nil) == message)
        }
        #expect(SecCopyErrorMessageString(noErr, nil) as String? == "No error.")
        #expect(SecCopyErrorMessageString(-12345, nil) == nil)
    }
}

#endif
