// On Darwin, SecItem and LAContext are Apple's own (the real keychain and sensor):
// see main.swift, which refuses to run there.
#if !canImport(Darwin)
// The platform guide's imports, unchanged: on Linux, Security and LocalAuthentication
// are this package's modules (see Package.swift).
import Foundation
import Security
import LocalAuthentication

// Apple's keychain guide (sections 6, 13 and 14), unchanged, imports included: its
// error type, its save of a Face ID protected secret, and its read with an LAContext. KeychainProbe runs them in their own process (`seed-save`,
// `seed-read`), so the tests drive them through every outcome of the sensor.

enum KeychainError: Error {
    case itemNotFound
    case duplicateItem
    case invalidData
    case unexpectedStatus(OSStatus)
}

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
#endif
