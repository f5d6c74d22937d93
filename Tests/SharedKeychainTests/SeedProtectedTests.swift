// What the guide's key-generation code does here: it compiles unchanged
// (SeedCode+Protected.swift) and fails the way iOS code must expect where a key
// cannot be made, never returning a key that does not exist. The guide's Face ID
// code is exercised through every sensor outcome by ProtectedSeedExampleTests.
#if !canImport(Darwin)

import AppGroupTesting
import Foundation
import LocalAuthentication
import Security
import Testing

@Suite("The guide's key-generation code (issue 12, part 4)", .dedicatedThreads)
struct SeedProtectedTests {
    @Test("key generation fails with errSecUnimplemented and stores nothing; LAContext sees the simulated Face ID")
    func keyGenerationFailsCleanly() throws {
        let box = try Sandbox()
        defer { box.remove() }
        _ = asProcess(box.keychain(Targets.app)) {
            #expect(performing: { try generatePrivateKey() }, throws: { ($0 as NSError).code == Int(errSecUnimplemented) })
        }
        #expect(try box.device.itemCount() == 0)

        // A new simulated device has Face ID enrolled (the sensor's default).
        let context = LAContext(simulatedDevice: box.device)
        var error: NSError?
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error == nil)
        #expect(context.biometryType == .faceID)
    }
}

#endif
