// The module `import Security` resolves to on Linux, where Apple's Security
// framework does not exist (Package.swift declares it on Linux only, so on Apple's
// platforms `import Security` still finds Apple's). It exposes Apple's names only:
// each line below re-exports one declaration of SharedKeychain (Keychain Services:
// SecItemAdd, kSecClass..., OSStatus and the Core Foundation types behind them),
// and nothing of the package's own API (Keychain, KeychainError, Accessibility,
// Entitlements, Diagnostics...), which stays under `import SharedKeychain`. An
// app's own type of such a name is then never ambiguous with this package's.
// Tests/SecurityNamesTests checks both: that every non-Apple name stays out, and
// that this list follows SharedKeychain's public names.
//
// The Core Foundation types are AppGroupFoundation's (its CoreFoundationNames/),
// one declaration each as well.
//
// Foundation too, as Apple's Security brings Core Foundation: CFDictionary is
// NSDictionary here, so a file that builds a query needs it.
@_exported import Foundation
@_exported import class AppGroupFoundation.CFAllocator
@_exported import typealias AppGroupFoundation.CFArray
@_exported import typealias AppGroupFoundation.CFBoolean
@_exported import typealias AppGroupFoundation.CFData
@_exported import typealias AppGroupFoundation.CFDictionary
@_exported import typealias AppGroupFoundation.CFError
@_exported import typealias AppGroupFoundation.CFNumber
@_exported import typealias AppGroupFoundation.CFOptionFlags
@_exported import typealias AppGroupFoundation.CFString
@_exported import typealias AppGroupFoundation.CFTypeRef
@_exported import typealias SharedKeychain.OSStatus
@_exported import class SharedKeychain.SecAccessControl
@_exported import struct SharedKeychain.SecAccessControlCreateFlags
@_exported import func SharedKeychain.SecAccessControlCreateWithFlags
@_exported import func SharedKeychain.SecCopyErrorMessageString
@_exported import func SharedKeychain.SecItemAdd
@_exported import func SharedKeychain.SecItemCopyMatching
@_exported import func SharedKeychain.SecItemDelete
@_exported import func SharedKeychain.SecItemUpdate
@_exported import class SharedKeychain.SecKey
@_exported import func SharedKeychain.SecKeyCreateRandomKey
@_exported import let SharedKeychain.errSecAuthFailed
@_exported import let SharedKeychain.errSecDecode
@_exported import let SharedKeychain.errSecDuplicateItem
@_exported import let SharedKeychain.errSecIO
@_exported import let SharedKeychain.errSecInteractionNotAllowed
@_exported import let SharedKeychain.errSecInvalidKeychain
@_exported import let SharedKeychain.errSecItemNotFound
@_exported import let SharedKeychain.errSecMissingEntitlement
@_exported import let SharedKeychain.errSecNoSuchAttr
@_exported import let SharedKeychain.errSecNotAvailable
@_exported import let SharedKeychain.errSecParam
@_exported import let SharedKeychain.errSecSuccess
@_exported import let SharedKeychain.errSecUnimplemented
@_exported import let SharedKeychain.errSecUserCanceled
@_exported import let AppGroupFoundation.kCFAllocatorDefault
@_exported import let AppGroupFoundation.kCFBooleanFalse
@_exported import let AppGroupFoundation.kCFBooleanTrue
@_exported import let SharedKeychain.kSecAttrAccessControl
@_exported import let SharedKeychain.kSecAttrAccessGroup
@_exported import let SharedKeychain.kSecAttrAccessible
@_exported import let SharedKeychain.kSecAttrAccessibleAfterFirstUnlock
@_exported import let SharedKeychain.kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
@_exported import let SharedKeychain.kSecAttrAccessibleAlways
@_exported import let SharedKeychain.kSecAttrAccessibleAlwaysThisDeviceOnly
@_exported import let SharedKeychain.kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
@_exported import let SharedKeychain.kSecAttrAccessibleWhenUnlocked
@_exported import let SharedKeychain.kSecAttrAccessibleWhenUnlockedThisDeviceOnly
@_exported import let SharedKeychain.kSecAttrAccount
@_exported import let SharedKeychain.kSecAttrApplicationLabel
@_exported import let SharedKeychain.kSecAttrApplicationTag
@_exported import let SharedKeychain.kSecAttrAuthenticationType
@_exported import let SharedKeychain.kSecAttrAuthenticationTypeDefault
@_exported import let SharedKeychain.kSecAttrAuthenticationTypeHTMLForm
@_exported import let SharedKeychain.kSecAttrAuthenticationTypeHTTPBasic
@_exported import let SharedKeychain.kSecAttrAuthenticationTypeHTTPDigest
@_exported import let SharedKeychain.kSecAttrCanDecrypt
@_exported import let SharedKeychain.kSecAttrCanDerive
@_exported import let SharedKeychain.kSecAttrCanEncrypt
@_exported import let SharedKeychain.kSecAttrCanSign
@_exported import let SharedKeychain.kSecAttrCanUnwrap
@_exported import let SharedKeychain.kSecAttrCanVerify
@_exported import let SharedKeychain.kSecAttrCanWrap
@_exported import let SharedKeychain.kSecAttrCertificateEncoding
@_exported import let SharedKeychain.kSecAttrCertificateType
@_exported import let SharedKeychain.kSecAttrComment
@_exported import let SharedKeychain.kSecAttrCreationDate
@_exported import let SharedKeychain.kSecAttrCreator
@_exported import let SharedKeychain.kSecAttrDescription
@_exported import let SharedKeychain.kSecAttrEffectiveKeySize
@_exported import let SharedKeychain.kSecAttrGeneric
@_exported import let SharedKeychain.kSecAttrIsExtractable
@_exported import let SharedKeychain.kSecAttrIsInvisible
@_exported import let SharedKeychain.kSecAttrIsNegative
@_exported import let SharedKeychain.kSecAttrIsPermanent
@_exported import let SharedKeychain.kSecAttrIsSensitive
@_exported import let SharedKeychain.kSecAttrIssuer
@_exported import let SharedKeychain.kSecAttrKeyClass
@_exported import let SharedKeychain.kSecAttrKeyClassPrivate
@_exported import let SharedKeychain.kSecAttrKeyClassPublic
@_exported import let SharedKeychain.kSecAttrKeyClassSymmetric
@_exported import let SharedKeychain.kSecAttrKeySizeInBits
@_exported import let SharedKeychain.kSecAttrKeyType
@_exported import let SharedKeychain.kSecAttrKeyTypeEC
@_exported import let SharedKeychain.kSecAttrKeyTypeECSECPrimeRandom
@_exported import let SharedKeychain.kSecAttrKeyTypeRSA
@_exported import let SharedKeychain.kSecAttrLabel
@_exported import let SharedKeychain.kSecAttrModificationDate
@_exported import let SharedKeychain.kSecAttrPath
@_exported import let SharedKeychain.kSecAttrPort
@_exported import let SharedKeychain.kSecAttrProtocol
@_exported import let SharedKeychain.kSecAttrProtocolFTP
@_exported import let SharedKeychain.kSecAttrProtocolHTTP
@_exported import let SharedKeychain.kSecAttrProtocolHTTPS
@_exported import let SharedKeychain.kSecAttrProtocolSSH
@_exported import let SharedKeychain.kSecAttrPublicKeyHash
@_exported import let SharedKeychain.kSecAttrSecurityDomain
@_exported import let SharedKeychain.kSecAttrSerialNumber
@_exported import let SharedKeychain.kSecAttrServer
@_exported import let SharedKeychain.kSecAttrService
@_exported import let SharedKeychain.kSecAttrSubject
@_exported import let SharedKeychain.kSecAttrSubjectKeyID
@_exported import let SharedKeychain.kSecAttrSynchronizable
@_exported import let SharedKeychain.kSecAttrSynchronizableAny
@_exported import let SharedKeychain.kSecAttrTokenID
@_exported import let SharedKeychain.kSecAttrTokenIDSecureEnclave
@_exported import let SharedKeychain.kSecAttrType
@_exported import let SharedKeychain.kSecClass
@_exported import let SharedKeychain.kSecClassCertificate
@_exported import let SharedKeychain.kSecClassGenericPassword
@_exported import let SharedKeychain.kSecClassIdentity
@_exported import let SharedKeychain.kSecClassInternetPassword
@_exported import let SharedKeychain.kSecClassKey
@_exported import let SharedKeychain.kSecMatchLimit
@_exported import let SharedKeychain.kSecMatchLimitAll
@_exported import let SharedKeychain.kSecMatchLimitOne
@_exported import let SharedKeychain.kSecPrivateKeyAttrs
@_exported import let SharedKeychain.kSecPublicKeyAttrs
@_exported import let SharedKeychain.kSecReturnAttributes
@_exported import let SharedKeychain.kSecReturnData
@_exported import let SharedKeychain.kSecReturnPersistentRef
@_exported import let SharedKeychain.kSecReturnRef
@_exported import let SharedKeychain.kSecUseAuthenticationContext
@_exported import let SharedKeychain.kSecUseAuthenticationUI
@_exported import let SharedKeychain.kSecUseAuthenticationUIAllow
@_exported import let SharedKeychain.kSecUseAuthenticationUIFail
@_exported import let SharedKeychain.kSecUseAuthenticationUISkip
@_exported import let SharedKeychain.kSecUseDataProtectionKeychain
@_exported import let SharedKeychain.kSecUseOperationPrompt
@_exported import let SharedKeychain.kSecValueData
@_exported import let SharedKeychain.kSecValuePersistentRef
@_exported import let SharedKeychain.kSecValueRef
@_exported import let SharedKeychain.noErr
