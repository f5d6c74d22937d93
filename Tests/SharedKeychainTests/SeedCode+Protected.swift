// The second platform guide's key-generation code (section 19), with its imports
// exactly as the guide has them: on Linux, Security and LocalAuthentication are
// this package's modules. It compiles unchanged; key generation is out of scope
// (no crypto library), and SeedProtectedTests pins how it fails. The guide's
// Face ID code (sections 13 and 14) runs in KeychainProbe (ProtectedSeedCode.swift),
// so tests drive it through every outcome from another process.
#if !canImport(Darwin)

import Foundation
import Security
import LocalAuthentication

func generatePrivateKey() throws -> SecKey {

    let attributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
        kSecAttrKeySizeInBits as String: 2048,
        kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true,
            kSecAttrApplicationTag as String:
                Data("com.justacademy.keys.private".utf8)
        ]
    ]

    var error: Unmanaged<CFError>?

    guard let privateKey = SecKeyCreateRandomKey(
        attributes as CFDictionary,
        &error
    ) else {
        throw error!.takeRetainedValue() as Error
    }

    return privateKey
}

#endif
