import Foundation

// Apple's Keychain Services vocabulary, for platforms without the Security
// framework, so that code written for iOS compiles here nearly unchanged:
//
//     let status = SecItemAdd(query as CFDictionary, nil)
//
// On Darwin the real Security module provides these names; declaring them there
// too would make every use ambiguous. There, use ``Keychain`` directly: Apple's
// constants have the same raw values (`kSecClass as String == "class"`).
#if !canImport(Security)

/// Apple's result code type.
public typealias OSStatus = Int32
/// A Core Foundation string; here a Swift `String`, so `kSecClass as String` is a no-op.
public typealias CFString = String
/// A Core Foundation dictionary; `NSDictionary` bridges to and from `[String: Any]`.
public typealias CFDictionary = NSDictionary
/// Any Core Foundation object; results come back as `Data`, `[String: Any]` or arrays of them.
public typealias CFTypeRef = AnyObject

/// `kCFBooleanTrue`, for `kSecAttrSynchronizable as String: kCFBooleanTrue as Any`.
public let kCFBooleanTrue: Bool = true
/// `kCFBooleanFalse`.
public let kCFBooleanFalse: Bool = false

// MARK: Item classes

/// The key whose value is the item class.
public let kSecClass: CFString = SecKey.class
/// Generic password items: primary key service and account (with access group and sync flag).
public let kSecClassGenericPassword: CFString = SecKey.genericPassword
/// Internet password items: primary key server, protocol, port, path, account,
/// authentication type and security domain (with access group and sync flag).
public let kSecClassInternetPassword: CFString = SecKey.internetPassword

// MARK: Attributes

public let kSecAttrService: CFString = SecKey.service
public let kSecAttrAccount: CFString = SecKey.account
/// The access group of an item; see ``Keychain`` for the rules.
public let kSecAttrAccessGroup: CFString = SecKey.accessGroup
/// When an item can be read; the default is `kSecAttrAccessibleWhenUnlocked`.
public let kSecAttrAccessible: CFString = SecKey.accessible
/// Whether an item syncs through iCloud Keychain (Bool; in queries also `kSecAttrSynchronizableAny`).
public let kSecAttrSynchronizable: CFString = SecKey.synchronizable
/// Matches synchronizable and non-synchronizable items alike (queries, updates, deletes).
public let kSecAttrSynchronizableAny: CFString = SecKey.synchronizableAny
public let kSecAttrLabel: CFString = SecKey.label
public let kSecAttrDescription: CFString = SecKey.description
public let kSecAttrComment: CFString = SecKey.comment
public let kSecAttrGeneric: CFString = SecKey.generic
public let kSecAttrCreator: CFString = SecKey.creator
public let kSecAttrType: CFString = SecKey.type
public let kSecAttrIsInvisible: CFString = SecKey.isInvisible
public let kSecAttrIsNegative: CFString = SecKey.isNegative
public let kSecAttrCreationDate: CFString = SecKey.creationDate
public let kSecAttrModificationDate: CFString = SecKey.modificationDate
public let kSecAttrServer: CFString = SecKey.server
public let kSecAttrProtocol: CFString = SecKey.protocol
public let kSecAttrPort: CFString = SecKey.port
public let kSecAttrPath: CFString = SecKey.path
public let kSecAttrAuthenticationType: CFString = SecKey.authenticationType
public let kSecAttrSecurityDomain: CFString = SecKey.securityDomain

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

public let kSecValueData: CFString = SecKey.valueData
public let kSecValueRef: CFString = SecKey.valueRef
public let kSecValuePersistentRef: CFString = SecKey.valuePersistentRef
public let kSecReturnData: CFString = SecKey.returnData
public let kSecReturnAttributes: CFString = SecKey.returnAttributes
public let kSecReturnRef: CFString = SecKey.returnRef
public let kSecReturnPersistentRef: CFString = SecKey.returnPersistentRef
/// One match (the default for `SecItemCopyMatching`), all of them, or a number.
public let kSecMatchLimit: CFString = SecKey.matchLimit
public let kSecMatchLimitOne: CFString = SecKey.matchLimitOne
public let kSecMatchLimitAll: CFString = SecKey.matchLimitAll
/// macOS: route the call to the data protection keychain, where access groups apply.
public let kSecUseDataProtectionKeychain: CFString = SecKey.useDataProtectionKeychain

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

/// Apple's message for a status code, nil for a code this emulator never returns.
/// The reason behind a particular failure (which group, which key) is written to
/// standard error when it happens, and thrown by ``Keychain``'s methods.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    SecStatus.message(status)
}

// MARK: The four functions

/// Adds an item to the keychain of the calling process's identity (see
/// ``Keychain/current``). `result`, when given and the attributes ask for it
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
