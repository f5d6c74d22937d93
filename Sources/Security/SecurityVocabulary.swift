import Foundation
import SharedKeychain

// Apple's Keychain Services vocabulary, for platforms without the Security
// framework, so that code written for iOS compiles here unchanged:
//
//     let status = SecItemAdd(query as CFDictionary, nil)
//
// On Apple's platforms the real Security module provides these names (and this
// module does not exist). There, use ``Keychain`` directly: Apple's constants have
// the same raw values (`kSecClass as String == "class"`).
#if !canImport(Darwin)

/// Apple's result code type.
public typealias OSStatus = Int32
// The Core Foundation types behind these names (CFString, CFDictionary, CFTypeRef...)
// are AppGroupFoundation's (CoreFoundationNames/), which this module re-exports.


/// "No error", the status `status == noErr` compares with (0, as `errSecSuccess`).
public let noErr: OSStatus = 0

// MARK: Item classes

/// The key whose value is the item class.
public let kSecClass: CFString = RawKey.class
/// Generic password items: primary key service and account (with access group and sync flag).
public let kSecClassGenericPassword: CFString = RawKey.genericPassword
/// Internet password items: primary key server, protocol, port, path, account,
/// authentication type and security domain (with access group and sync flag).
public let kSecClassInternetPassword: CFString = RawKey.internetPassword
/// Certificates, stored as their bytes (`kSecValueData`) with Apple's certificate attributes.
public let kSecClassCertificate: CFString = RawKey.certificateClass
/// Keys, stored as their bytes (`kSecValueData`) with Apple's key attributes; no key generation.
public let kSecClassKey: CFString = RawKey.keyClassItem
/// Identities (a certificate and its private key), stored as bytes with both classes' attributes.
public let kSecClassIdentity: CFString = RawKey.identityClass

// MARK: Attributes

public let kSecAttrService: CFString = RawKey.service
public let kSecAttrAccount: CFString = RawKey.account
/// The access group of an item; see ``Keychain`` for the rules.
public let kSecAttrAccessGroup: CFString = RawKey.accessGroup
/// When an item can be read; the default is `kSecAttrAccessibleWhenUnlocked`.
public let kSecAttrAccessible: CFString = RawKey.accessible
/// Whether an item syncs through iCloud Keychain (Bool; in queries also `kSecAttrSynchronizableAny`).
public let kSecAttrSynchronizable: CFString = RawKey.synchronizable
/// Matches synchronizable and non-synchronizable items alike (queries, updates, deletes).
public let kSecAttrSynchronizableAny: CFString = RawKey.synchronizableAny
public let kSecAttrLabel: CFString = RawKey.label
public let kSecAttrDescription: CFString = RawKey.description
public let kSecAttrComment: CFString = RawKey.comment
public let kSecAttrGeneric: CFString = RawKey.generic
public let kSecAttrCreator: CFString = RawKey.creator
public let kSecAttrType: CFString = RawKey.type
public let kSecAttrIsInvisible: CFString = RawKey.isInvisible
public let kSecAttrIsNegative: CFString = RawKey.isNegative
public let kSecAttrCreationDate: CFString = RawKey.creationDate
public let kSecAttrModificationDate: CFString = RawKey.modificationDate
public let kSecAttrServer: CFString = RawKey.server
public let kSecAttrProtocol: CFString = RawKey.protocol
public let kSecAttrPort: CFString = RawKey.port
public let kSecAttrPath: CFString = RawKey.path
public let kSecAttrAuthenticationType: CFString = RawKey.authenticationType
public let kSecAttrSecurityDomain: CFString = RawKey.securityDomain

// MARK: Accessibility values

public let kSecAttrAccessibleWhenUnlocked: CFString = Accessibility.whenUnlocked.rawValue
public let kSecAttrAccessibleAfterFirstUnlock: CFString = Accessibility.afterFirstUnlock.rawValue
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = Accessibility.whenUnlockedThisDeviceOnly.rawValue
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = Accessibility.afterFirstUnlockThisDeviceOnly.rawValue
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = Accessibility.whenPasscodeSetThisDeviceOnly.rawValue
/// Deprecated since iOS 12: flagged on use (see ``Keychain/Behavior/refusesDeprecatedAccessibility``).
@available(*, deprecated, message: "use kSecAttrAccessibleAfterFirstUnlock")
public let kSecAttrAccessibleAlways: CFString = Accessibility.always.rawValue
/// Deprecated since iOS 12: flagged on use.
@available(*, deprecated, message: "use kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly")
public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = Accessibility.alwaysThisDeviceOnly.rawValue

// MARK: Internet password values

public let kSecAttrProtocolHTTP: CFString = "http"
public let kSecAttrProtocolHTTPS: CFString = "htps"
public let kSecAttrProtocolFTP: CFString = "ftp "
public let kSecAttrProtocolSSH: CFString = "ssh "
public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"
public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"

// MARK: Values, results, search

public let kSecValueData: CFString = RawKey.valueData
public let kSecValueRef: CFString = RawKey.valueRef
public let kSecValuePersistentRef: CFString = RawKey.valuePersistentRef
public let kSecReturnData: CFString = RawKey.returnData
public let kSecReturnAttributes: CFString = RawKey.returnAttributes
public let kSecReturnRef: CFString = RawKey.returnRef
public let kSecReturnPersistentRef: CFString = RawKey.returnPersistentRef
/// One match (the default for `SecItemCopyMatching`), all of them, or a number.
public let kSecMatchLimit: CFString = RawKey.matchLimit
public let kSecMatchLimitOne: CFString = RawKey.matchLimitOne
public let kSecMatchLimitAll: CFString = RawKey.matchLimitAll
/// macOS: route the call to the data protection keychain, where access groups apply.
public let kSecUseDataProtectionKeychain: CFString = RawKey.useDataProtectionKeychain

// MARK: Status codes (SecBase.h values)

public let errSecSuccess: OSStatus = SecStatus.success
public let errSecUnimplemented: OSStatus = SecStatus.unimplemented
public let errSecIO: OSStatus = SecStatus.io
public let errSecParam: OSStatus = SecStatus.param
public let errSecUserCanceled: OSStatus = SecStatus.userCanceled
public let errSecNotAvailable: OSStatus = SecStatus.notAvailable
public let errSecInvalidKeychain: OSStatus = SecStatus.invalidKeychain
public let errSecDuplicateItem: OSStatus = SecStatus.duplicateItem
public let errSecItemNotFound: OSStatus = SecStatus.itemNotFound
public let errSecNoSuchAttr: OSStatus = SecStatus.noSuchAttribute
public let errSecInteractionNotAllowed: OSStatus = SecStatus.interactionNotAllowed
public let errSecDecode: OSStatus = SecStatus.decode
public let errSecMissingEntitlement: OSStatus = SecStatus.missingEntitlement

/// Apple's message for a status code (its text for every status this emulator
/// returns), nil for a code it never returns.
/// The reason behind a particular failure (which group, which key) is written to
/// standard error when it happens, and thrown by ``Keychain``'s methods.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    SecStatus.message(status)
}

// MARK: The four functions

/// Adds an item to the keychain of the calling process's identity (see
/// ``Keychain/current()``). `result`, when given and the attributes ask for it
/// (`kSecReturnData`, `kSecReturnAttributes`), receives the new item.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    Keychain.runReportingStatus("SecItemAdd", result) { keychain in
        try keychain.add(try Keychain.dictionary(attributes)).map { $0 as AnyObject }
    }
}

/// Finds items matching `query`: `Data`, `[String: Any]` or arrays of them in `result`,
/// depending on `kSecReturnData`, `kSecReturnAttributes` and `kSecMatchLimit`.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    Keychain.runReportingStatus("SecItemCopyMatching", result) { keychain in
        try keychain.copyMatching(try Keychain.dictionary(query)).map { $0 as AnyObject }
    }
}

/// Changes every item matching `query`; the access group cannot be changed.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    Keychain.runReportingStatus("SecItemUpdate", nil) { keychain in
        try keychain.update(try Keychain.dictionary(query), with: try Keychain.dictionary(attributesToUpdate))
        return nil
    }
}

/// Deletes every item matching `query`.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    Keychain.runReportingStatus("SecItemDelete", nil) { keychain in
        try keychain.delete(try Keychain.dictionary(query))
        return nil
    }
}

#endif
