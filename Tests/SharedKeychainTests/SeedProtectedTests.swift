// What the guide's authentication and key-generation code does here: it compiles
// unchanged (SeedCode+Protected.swift) and fails the way iOS code must expect on
// a device that cannot do it, never silently storing an unprotected item.
#if !canImport(Darwin)

import Foundation
import LocalAuthentication
import Security
import Testing

@Suite("The guide's biometric and key-generation code (issue 12, part 4)")
struct SeedProtectedTests {
    @Test("a biometric-protected save and read are errSecUnimplemented and store nothing; key generation fails with -4; LAContext has no biometry")
    func protectedCodeFailsCleanly() throws {
        let box = try Sandbox()
        defer { box.remove() }
        asProcess(box.keychain(Targets.app)) {
            #expect(throws: KeychainError.unexpectedStatus(errSecUnimplemented)) {
                try saveBiometricProtectedSecret(secret: "s3cret", account: "alice")
            }
            #expect(throws: KeychainError.unexpectedStatus(errSecUnimplemented)) { try readProtectedSecret(account: "alice") }
            #expect(performing: { try generatePrivateKey() }, throws: { ($0 as NSError).code == Int(errSecUnimplemented) })
        }
        #expect(try box.device.itemCount() == 0)

        let context = LAContext()
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.domain == LAErrorDomain && error?.code == LAError.Code.biometryNotAvailable.rawValue)
    }
}

#endif
