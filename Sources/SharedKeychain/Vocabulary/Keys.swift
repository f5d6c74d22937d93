/// The raw strings behind Apple's `kSec...` constants (`kSecClass` is `"class"`,
/// `kSecAttrAccessGroup` is `"agrp"`...). The engine speaks these, so a query built
/// with Apple's own constants on Darwin (`kSecClass as String`) and one built with
/// this package's Linux constants are the same dictionary.
enum RawKey {
    static let `class` = "class"
    static let genericPassword = "genp"
    static let internetPassword = "inet"

    static let service = "svce"
    static let account = "acct"
    static let accessGroup = "agrp"
    static let accessible = "pdmn"
    static let synchronizable = "sync"
    static let synchronizableAny = "syna"
    static let label = "labl"
    static let description = "desc"
    static let comment = "icmt"
    static let generic = "gena"
    static let creator = "crtr"
    static let type = "type"
    static let isInvisible = "invi"
    static let isNegative = "nega"
    static let creationDate = "cdat"
    static let modificationDate = "mdat"
    static let server = "srvr"
    static let `protocol` = "ptcl"
    static let port = "port"
    static let path = "path"
    static let authenticationType = "atyp"
    static let securityDomain = "sdmn"
    static let accessControl = "accc"

    // Item classes without passwords.
    static let certificateClass = "cert"
    static let keyClassItem = "keys"
    static let identityClass = "idnt"
    // Certificate attributes.
    static let certificateType = "ctyp"
    static let certificateEncoding = "cenc"
    static let subject = "subj"
    static let issuer = "issr"
    static let serialNumber = "slnr"
    static let subjectKeyID = "skid"
    static let publicKeyHash = "pkhh"
    // Key attributes. kSecAttrKeyType shares its raw value with kSecAttrType.
    static let keyClass = "kcls"
    static let keyType = "type"
    static let applicationLabel = "klbl"
    static let applicationTag = "atag"
    static let keySizeInBits = "bsiz"
    static let effectiveKeySize = "esiz"
    static let isPermanent = "perm"
    static let isSensitive = "sens"
    static let isExtractable = "extr"
    static let canEncrypt = "encr"
    static let canDecrypt = "decr"
    static let canDerive = "drve"
    static let canSign = "sign"
    static let canVerify = "vrfy"
    static let canWrap = "wrap"
    static let canUnwrap = "unwp"
    static let tokenID = "tkid"
    static let privateKeyAttributes = "private"
    static let publicKeyAttributes = "public"
    static let useOperationPrompt = "u_OpPrompt"

    static let valueData = "v_Data"
    static let valueRef = "v_Ref"
    static let valuePersistentRef = "v_PersistentRef"
    static let returnData = "r_Data"
    static let returnAttributes = "r_Attributes"
    static let returnRef = "r_Ref"
    static let returnPersistentRef = "r_PersistentRef"
    static let matchLimit = "m_Limit"
    static let matchLimitOne = "m_LimitOne"
    static let matchLimitAll = "m_LimitAll"
    static let useDataProtectionKeychain = "nleg"
    static let useAuthenticationContext = "u_AuthCtx"
    static let useAuthenticationUI = "u_AuthUI"
    static let useAuthenticationUIAllow = "u_AuthUIA"
    static let useAuthenticationUIFail = "u_AuthUIF"
    static let useAuthenticationUISkip = "u_AuthUIS"

    /// Human names for messages: "kSecAttrAccount" reads better than "acct".
    static let names: [String: String] = [
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

    static func name(_ key: String) -> String { names[key].map { "\($0) (\"\(key)\")" } ?? "\"\(key)\"" }
}
