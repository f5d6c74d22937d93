// The second platform guide's keychain code that needs user authentication or
// key generation, with its imports exactly as the guide has them: on Linux,
// Security and LocalAuthentication are this package's modules. It compiles
// unchanged; what it does here is pinned by SeedProtectedTests (not emulated
// yet: errSecUnimplemented, and key generation is out of scope).
#if !canImport(Darwin)

import Foundation
import Security
import LocalAuthentication

func saveBiometricProtectedSecret(
    secret: String,
    account: String
) throws {

    guard let data = secret.data(using: .utf8) else {
        throw KeychainError.invalidData
    }

    var error: Unmanaged<CFError>?

    guard let accessControl = SecAccessControlCreateWithFlags(
        kCFAllocatorDefault,
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        .biometryCurrentSet,
        &error
    ) else {
        throw error!.takeRetainedValue() as Error
    }

    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "com.justacademy.secureapp",
        kSecAttrAccount as String: account,
        kSecValueData as String: data,
        kSecAttrAccessControl as String: accessControl
    ]

    let status = SecItemAdd(
        query as CFDictionary,
        nil
    )

    guard status == errSecSuccess else {
        throw KeychainError.unexpectedStatus(status)
    }
}

func readProtectedSecret(account: String) throws -> String {

    let context = LAContext()
    context.localizedReason =
        "Authenticate to access your saved information"

    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "com.justacademy.secureapp",
        kSecAttrAccount as String: account,
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne,
        kSecUseAuthenticationContext as String: context
    ]

    var result: CFTypeRef?

    let status = SecItemCopyMatching(
        query as CFDictionary,
        &result
    )

    guard status == errSecSuccess else {
        throw KeychainError.unexpectedStatus(status)
    }

    guard let data = result as? Data,
          let secret = String(data: data, encoding: .utf8) else {
        throw KeychainError.invalidData
    }

    return secret
}

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
