/// The raw strings behind Apple's `kSec...` constants (`kSecClass` is `"class"`,
/// `kSecAttrAccessGroup` is `"agrp"`...). The engine speaks these, so a query built
/// with Apple's own constants on Darwin (`kSecClass as String`) and one built with
/// this package's Linux constants are the same dictionary.
package enum RawKey {
    package static let `class` = "class"
    package static let genericPassword = "genp"
    package static let internetPassword = "inet"

    package static let service = "svce"
    package static let account = "acct"
    package static let accessGroup = "agrp"
    package static let accessible = "pdmn"
    package static let synchronizable = "sync"
    package static let synchronizableAny = "syna"
    package static let label = "labl"
    package static let description = "desc"
    package static let comment = "icmt"
    package static let generic = "gena"
    package static let creator = "crtr"
    package static let type = "type"
    package static let isInvisible = "invi"
    package static let isNegative = "nega"
    package static let creationDate = "cdat"
    package static let modificationDate = "mdat"
    package static let server = "srvr"
    package static let `protocol` = "ptcl"
    package static let port = "port"
    package static let path = "path"
    package static let authenticationType = "atyp"
    package static let securityDomain = "sdmn"
    package static let accessControl = "accc"

    // Item classes without passwords.
    package static let certificateClass = "cert"
    package static let keyClassItem = "keys"
    package static let identityClass = "idnt"
    // Certificate attributes.
    package static let certificateType = "ctyp"
    package static let certificateEncoding = "cenc"
    package static let subject = "subj"
    package static let issuer = "issr"
    package static let serialNumber = "slnr"
    package static let subjectKeyID = "skid"
    package static let publicKeyHash = "pkhh"
    // Key attributes. kSecAttrKeyType shares its raw value with kSecAttrType.
    package static let keyClass = "kcls"
    package static let keyType = "type"
    package static let applicationLabel = "klbl"
    package static let applicationTag = "atag"
    package static let keySizeInBits = "bsiz"
    package static let effectiveKeySize = "esiz"
    package static let isPermanent = "perm"
    package static let isSensitive = "sens"
    package static let isExtractable = "extr"
    package static let canEncrypt = "encr"
    package static let canDecrypt = "decr"
    package static let canDerive = "drve"
    package static let canSign = "sign"
    package static let canVerify = "vrfy"
    package static let canWrap = "wrap"
    package static let canUnwrap = "unwp"
    package static let tokenID = "tkid"
    package static let privateKeyAttributes = "private"
    package static let publicKeyAttributes = "public"
    package static let useOperationPrompt = "u_OpPrompt"

    package static let valueData = "v_Data"
    package static let valueRef = "v_Ref"
    package static let valuePersistentRef = "v_PersistentRef"
    package static let returnData = "r_Data"
    package static let returnAttributes = "r_Attributes"
    package static let returnRef = "r_Ref"
    package static let returnPersistentRef = "r_PersistentRef"
    package static let matchLimit = "m_Limit"
    package static let matchLimitOne = "m_LimitOne"
    package static let matchLimitAll = "m_LimitAll"
    package static let useDataProtectionKeychain = "nleg"
    package static let useAuthenticationContext = "u_AuthCtx"
    package static let useAuthenticationUI = "u_AuthUI"
    package static let useAuthenticationUIAllow = "u_AuthUIA"
    package static let useAuthenticationUIFail = "u_AuthUIF"
    package static let useAuthenticationUISkip = "u_AuthUIS"

    /// Human names for messages: "kSecAttrAccount" reads better than "acct".
    package static let names: [String: String] = [
        `class`: "kSecClass", service: "kSecAttrService", account: "kSecAttrAccount",
        accessGroup: "kSecAttrAccessGroup", accessible: "kSecAttrAccessible",
        synchronizable: "kSecAttrSynchronizable", label: "kSecAttrLabel", description: "kSecAttrDescription",
        comment: "kSecAttrComment", generic: "kSecAttrGeneric", creator: "kSecAttrCreator", type: "kSecAttrType",
        isInvisible: "kSecAttrIsInvisible", isNegative: "kSecAttrIsNegative", creationDate: "kSecAttrCreationDate",
        modificationDate: "kSecAttrModificationDate", server: "kSecAttrServer", `protocol`: "kSecAttrProtocol",
        port: "kSecAttrPort", path: "kSecAttrPath", authenticationType: "kSecAttrAuthenticationType",
        securityDomain: "kSecAttrSecurityDomain", accessControl: "kSecAttrAccessControl",
        valueData: "kSecValueData", valueRef: "kSecValueRef", valuePersistentRef: "kSecValuePersistentRef",
        returnData: "kSecReturnData", returnAttributes: "kSecReturnAttributes", returnRef: "kSecReturnRef",
        returnPersistentRef: "kSecReturnPersistentRef", matchLimit: "kSecMatchLimit",
        useDataProtectionKeychain: "kSecUseDataProtectionKeychain",
        useAuthenticationContext: "kSecUseAuthenticationContext", useAuthenticationUI: "kSecUseAuthenticationUI",
        certificateType: "kSecAttrCertificateType", certificateEncoding: "kSecAttrCertificateEncoding",
        subject: "kSecAttrSubject", issuer: "kSecAttrIssuer", serialNumber: "kSecAttrSerialNumber",
        subjectKeyID: "kSecAttrSubjectKeyID", publicKeyHash: "kSecAttrPublicKeyHash", keyClass: "kSecAttrKeyClass",
        applicationLabel: "kSecAttrApplicationLabel", applicationTag: "kSecAttrApplicationTag",
        keySizeInBits: "kSecAttrKeySizeInBits", effectiveKeySize: "kSecAttrEffectiveKeySize", isPermanent: "kSecAttrIsPermanent",
        isSensitive: "kSecAttrIsSensitive", isExtractable: "kSecAttrIsExtractable", canEncrypt: "kSecAttrCanEncrypt",
        canDecrypt: "kSecAttrCanDecrypt", canDerive: "kSecAttrCanDerive", canSign: "kSecAttrCanSign",
        canVerify: "kSecAttrCanVerify", canWrap: "kSecAttrCanWrap", canUnwrap: "kSecAttrCanUnwrap", tokenID: "kSecAttrTokenID",
        privateKeyAttributes: "kSecPrivateKeyAttrs", publicKeyAttributes: "kSecPublicKeyAttrs", useOperationPrompt: "kSecUseOperationPrompt",
    ]

    package static func name(_ key: String) -> String { names[key].map { "\($0) (\"\(key)\")" } ?? "\"\(key)\"" }
}
