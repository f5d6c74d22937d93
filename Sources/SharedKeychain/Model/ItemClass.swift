/// The item classes the emulator stores, with Apple's raw values.
///
/// Keys, certificates and identities are stored with the attributes Apple lists
/// for their class and their value as `kSecValueData` (the bytes); the emulator
/// makes no `SecKey`, `SecCertificate` or `SecIdentity` objects and generates no keys.
public enum ItemClass: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `kSecClassGenericPassword`.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword`.
    case internetPassword = "inet"
    /// `kSecClassCertificate`.
    case certificate = "cert"
    /// `kSecClassKey`.
    case key = "keys"
    /// `kSecClassIdentity`: a certificate with its private key.
    case identity = "idnt"

    /// The attributes that, with the access group and the sync flag, identify an
    /// item: adding a second item with the same values is `errSecDuplicateItem`.
    /// Apple's lists (the `errSecDuplicateItem` documentation); an identity is
    /// unique by its certificate.
    var primaryKeyAttributes: [String] {
        switch self {
        case .genericPassword: return [RawKey.account, RawKey.service]
        case .internetPassword:
            return [RawKey.account, RawKey.securityDomain, RawKey.server, RawKey.protocol,
                    RawKey.authenticationType, RawKey.port, RawKey.path]
        case .certificate, .identity: return [RawKey.certificateType, RawKey.issuer, RawKey.serialNumber]
        case .key:
            return [RawKey.keyClass, RawKey.keyType, RawKey.applicationLabel, RawKey.applicationTag,
                    RawKey.keySizeInBits, RawKey.effectiveKeySize]
        }
    }

    /// Attributes valid for the class, with the type each takes.
    var attributeTypes: [String: AttributeValue.Kind] {
        var types: [String: AttributeValue.Kind] = [
            RawKey.label: .string, RawKey.creationDate: .date, RawKey.modificationDate: .date,
        ]
        switch self {
        case .genericPassword, .internetPassword:
            types.merge(Self.passwordAttributes) { $1 }
            if self == .genericPassword {
                types[RawKey.service] = .string
                types[RawKey.generic] = .data
            } else {
                types.merge(Self.internetAttributes) { $1 }
            }
        case .certificate: types.merge(Self.certificateAttributes) { $1 }
        case .key: types.merge(Self.keyAttributes) { $1 }
        case .identity:
            types.merge(Self.certificateAttributes) { $1 }
            types.merge(Self.keyAttributes) { $1 }
        }
        return types
    }

    private static let passwordAttributes: [String: AttributeValue.Kind] = [
        RawKey.description: .string, RawKey.comment: .string, RawKey.creator: .int, RawKey.type: .int,
        RawKey.isInvisible: .bool, RawKey.isNegative: .bool, RawKey.account: .string,
    ]
    private static let internetAttributes: [String: AttributeValue.Kind] = [
        RawKey.server: .string, RawKey.protocol: .string, RawKey.port: .int, RawKey.path: .string,
        RawKey.authenticationType: .string, RawKey.securityDomain: .string,
    ]
    private static let certificateAttributes: [String: AttributeValue.Kind] = [
        RawKey.certificateType: .int, RawKey.certificateEncoding: .int, RawKey.subject: .data, RawKey.issuer: .data,
        RawKey.serialNumber: .data, RawKey.subjectKeyID: .data, RawKey.publicKeyHash: .data,
    ]
    // kSecAttrKeyClass and kSecAttrKeyType take Apple's constants, which are strings ("1", "42").
    private static let keyAttributes: [String: AttributeValue.Kind] = [
        RawKey.keyClass: .string, RawKey.keyType: .string, RawKey.applicationLabel: .data, RawKey.applicationTag: .data,
        RawKey.keySizeInBits: .int, RawKey.effectiveKeySize: .int, RawKey.isPermanent: .bool, RawKey.isSensitive: .bool,
        RawKey.isExtractable: .bool, RawKey.canEncrypt: .bool, RawKey.canDecrypt: .bool, RawKey.canDerive: .bool,
        RawKey.canSign: .bool, RawKey.canVerify: .bool, RawKey.canWrap: .bool, RawKey.canUnwrap: .bool,
    ]

    /// The constant's name, for messages.
    public var description: String {
        switch self {
        case .genericPassword: return "kSecClassGenericPassword"
        case .internetPassword: return "kSecClassInternetPassword"
        case .certificate: return "kSecClassCertificate"
        case .key: return "kSecClassKey"
        case .identity: return "kSecClassIdentity"
        }
    }
}
