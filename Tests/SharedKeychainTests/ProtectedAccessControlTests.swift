#if !canImport(Darwin)
import AppGroupTesting
import AppGroupContainer
import Foundation
@testable import SharedKeychain
import Testing
import Security

/// Part 1 of issue 13: SecAccessControlCreateWithFlags and kSecAttrAccessControl.
@Suite(.dedicatedThreads) struct ProtectedAccessControlTests {
    @Test func flagsHaveApplesBitValues() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 2)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 8)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 16)
        #expect(SecAccessControlCreateFlags.or.rawValue == 16384)
        #expect(SecAccessControlCreateFlags.and.rawValue == 32768)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
    }

    /// Invalid combinations give nil and a CFError carrying the status, as Apple's do.
    @Test(arguments: [
        (SecAccessControlCreateFlags([.biometryAny, .or, .and, .devicePasscode]), errSecParam),
        (SecAccessControlCreateFlags.or, errSecParam),
        (SecAccessControlCreateFlags(rawValue: 1 << 7), errSecParam),
        (SecAccessControlCreateFlags([.biometryAny, .privateKeyUsage]), errSecUnimplemented),
        (SecAccessControlCreateFlags.applicationPassword, errSecUnimplemented),
    ])
    func invalidCombinationsFailWithAnError(flags: SecAccessControlCreateFlags, status: OSStatus) {
        var error: Unmanaged<CFError>?
        let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, &error)
        #expect(control == nil)
        let failure = error?.takeRetainedValue()
        #expect(failure?.code == Int(status))
        #expect(failure?.domain == "NSOSStatusErrorDomain")
        #expect((failure?.localizedDescription ?? "").contains("SecAccessControlCreateWithFlags") || status == errSecUnimplemented)
    }

    @Test func aBadProtectionIsRefused() {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, "nonsense", .userPresence, &error) == nil)
        #expect(error?.takeRetainedValue().code == Int(errSecParam))
        #expect(SecAccessControlCreateWithFlags(nil, 42, .userPresence, nil) == nil)
    }

    @Test func theAccessControlIsStoredAndReturnedWithTheAttributes() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        #expect(Protected.add(app, "alice", [.biometryAny, .or, .devicePasscode]) == errSecSuccess)
        let before = try Protected.prompts(box.device)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Protected.service,
                                    kSecReturnAttributes as String: true]
        var found: CFTypeRef?
        #expect(asProcess(app) { SecItemCopyMatching(query as CFDictionary, &found) } == errSecSuccess)
        let attributes = found as? [String: Any]
        let control = attributes?[kSecAttrAccessControl as String] as? SecAccessControl
        #expect(control?.flags == [.biometryAny, .or, .devicePasscode])
        #expect(control?.protection == kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
        #expect(attributes?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
        // Attributes only: no prompt was shown.
        #expect(try Protected.prompts(box.device) == before)
    }

    @Test func accessControlWithAccessibleIsErrSecParamAndStoresNothing() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let control = try #require(Protected.control(.userPresence))
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Protected.service,
            kSecAttrAccount as String: "bob", kSecValueData as String: Data("x".utf8),
            kSecAttrAccessControl as String: control, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
        ]
        #expect(asProcess(box.keychain(Targets.app)) { SecItemAdd(query as CFDictionary, nil) } == errSecParam)
        #expect(try box.device.itemCount() == 0)
    }

    @Test func accessControlOutsideAnAddAndWrongValueTypesAreRefused() throws {
        let box = try Sandbox()
        defer { box.remove() }
        let app = box.keychain(Targets.app)
        let control = try #require(Protected.control(.userPresence))
        #expect(Protected.add(app, "carol", .userPresence) == errSecSuccess)
        let search: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessControl as String: control]
        #expect(asProcess(app) { SecItemCopyMatching(search as CFDictionary, nil) } == errSecParam)
        let identity: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "carol"]
        #expect(asProcess(app) { SecItemUpdate(identity as CFDictionary, [kSecAttrAccessControl as String: control] as CFDictionary) } == errSecParam)
        var add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "dave",
                                  kSecAttrAccessControl as String: "biometryAny"]
        #expect(asProcess(app) { SecItemAdd(add as CFDictionary, nil) } == errSecParam)
        add[kSecAttrAccessControl as String] = control
        add[kSecUseAuthenticationContext as String] = "not a context"
        #expect(asProcess(app) { SecItemAdd(add as CFDictionary, nil) } == errSecParam)
        add[kSecUseAuthenticationContext as String] = nil
        add[kSecUseAuthenticationUI as String] = "sometimes"
        #expect(asProcess(app) { SecItemAdd(add as CFDictionary, nil) } == errSecParam)
        #expect(try box.device.itemCount() == 1)
    }
}
#endif
