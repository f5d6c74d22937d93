import AppGroupContainer
import Foundation
import SharedKeychain

// The attributes of keys, certificates and identities, with Apple's raw values,
// so that code that cleans up or stores such items compiles here unchanged.
#if !canImport(Darwin)

// MARK: Certificates (and identities)

/// Number: the certificate type (primary key).
public let kSecAttrCertificateType: CFString = RawKey.certificateType
/// Number: the certificate encoding.
public let kSecAttrCertificateEncoding: CFString = RawKey.certificateEncoding
/// Data: the DER-encoded subject.
public let kSecAttrSubject: CFString = RawKey.subject
/// Data: the DER-encoded issuer (primary key).
public let kSecAttrIssuer: CFString = RawKey.issuer
/// Data: the serial number (primary key).
public let kSecAttrSerialNumber: CFString = RawKey.serialNumber
/// Data: the subject key identifier.
public let kSecAttrSubjectKeyID: CFString = RawKey.subjectKeyID
/// Data: the hash of the public key.
public let kSecAttrPublicKeyHash: CFString = RawKey.publicKeyHash

// MARK: Keys (and identities)

/// String: ``kSecAttrKeyClassPublic``, ``kSecAttrKeyClassPrivate`` or ``kSecAttrKeyClassSymmetric`` (primary key).
public let kSecAttrKeyClass: CFString = RawKey.keyClass
public let kSecAttrKeyClassPublic: CFString = "0"
public let kSecAttrKeyClassPrivate: CFString = "1"
public let kSecAttrKeyClassSymmetric: CFString = "2"
/// String: the algorithm, ``kSecAttrKeyTypeRSA`` or ``kSecAttrKeyTypeECSECPrimeRandom`` (primary key).
public let kSecAttrKeyType: CFString = RawKey.keyType
public let kSecAttrKeyTypeRSA: CFString = "42"
public let kSecAttrKeyTypeEC: CFString = "73"
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// Data: the application label, usually the hash of the public key (primary key).
public let kSecAttrApplicationLabel: CFString = RawKey.applicationLabel
/// Data: the application's own tag for the key (primary key).
public let kSecAttrApplicationTag: CFString = RawKey.applicationTag
/// Number: the key size in bits (primary key).
public let kSecAttrKeySizeInBits: CFString = RawKey.keySizeInBits
/// Number: the effective key size in bits (primary key).
public let kSecAttrEffectiveKeySize: CFString = RawKey.effectiveKeySize
public let kSecAttrIsPermanent: CFString = RawKey.isPermanent
public let kSecAttrIsSensitive: CFString = RawKey.isSensitive
public let kSecAttrIsExtractable: CFString = RawKey.isExtractable
public let kSecAttrCanEncrypt: CFString = RawKey.canEncrypt
public let kSecAttrCanDecrypt: CFString = RawKey.canDecrypt
public let kSecAttrCanDerive: CFString = RawKey.canDerive
public let kSecAttrCanSign: CFString = RawKey.canSign
public let kSecAttrCanVerify: CFString = RawKey.canVerify
public let kSecAttrCanWrap: CFString = RawKey.canWrap
public let kSecAttrCanUnwrap: CFString = RawKey.canUnwrap
/// Secure Enclave keys: refused with `errSecUnimplemented`.
public let kSecAttrTokenID: CFString = RawKey.tokenID
public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// Key generation attributes (for `SecKeyCreateRandomKey`, which is not emulated).
public let kSecPrivateKeyAttrs: CFString = RawKey.privateKeyAttributes
public let kSecPublicKeyAttrs: CFString = RawKey.publicKeyAttributes

/// A key object. The emulator makes none: keys are stored as `kSecValueData`.
public final class SecKey: Sendable {
    private init() {}
}

/// Key generation is not emulated: returns nil, with `errSecUnimplemented` (-4) in
/// `error` (domain `NSOSStatusErrorDomain`) saying so. Store generated key bytes
/// with `kSecClassKey` and `kSecValueData` instead.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    let message = "SecKeyCreateRandomKey: key generation is not emulated (errSecUnimplemented). Generate the key with a crypto library and store its bytes with kSecClassKey and kSecValueData"
    Diagnostics.warn("SharedKeychain " + message)
    error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(SecStatus.unimplemented),
                                                    userInfo: [NSLocalizedDescriptionKey: message]))
    return nil
}

#endif
