/// The item classes the emulator stores, with Apple's raw values.
public enum ItemClass: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `kSecClassGenericPassword`.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword`.
    case internetPassword = "inet"

    /// The attributes that, with the access group and the sync flag, identify an
    /// item: adding a second item with the same values is `errSecDuplicateItem`.
    var primaryKeyAttributes: [String] {
        switch self {
        case .genericPassword: return [SecKey.account, SecKey.service]
        case .internetPassword:
            return [SecKey.account, SecKey.securityDomain, SecKey.server, SecKey.protocol,
                    SecKey.authenticationType, SecKey.port, SecKey.path]
        }
    }

    /// Attributes valid for the class, with the type each takes.
    var attributeTypes: [String: AttributeValue.Kind] {
        var common: [String: AttributeValue.Kind] = [
            SecKey.label: .string, SecKey.description: .string, SecKey.comment: .string,
            SecKey.creator: .int, SecKey.type: .int, SecKey.isInvisible: .bool, SecKey.isNegative: .bool,
            SecKey.account: .string, SecKey.creationDate: .date, SecKey.modificationDate: .date,
        ]
        switch self {
        case .genericPassword:
            common[SecKey.service] = .string
            common[SecKey.generic] = .data
        case .internetPassword:
            common[SecKey.server] = .string
            common[SecKey.protocol] = .string
            common[SecKey.port] = .int
            common[SecKey.path] = .string
            common[SecKey.authenticationType] = .string
            common[SecKey.securityDomain] = .string
        }
        return common
    }

    public var description: String { self == .genericPassword ? "kSecClassGenericPassword" : "kSecClassInternetPassword" }
}
