import Foundation

/// What identifies an item in the typed layer: it builds the query dictionary
/// (class, primary key, access group, sync flag) the dictionary layer runs.
public protocol KeychainItemKey: Sendable, CustomStringConvertible {
    /// The query that finds exactly this item.
    var query: [String: Any] { get }
}

/// A generic password: service and account, in an access group (nil: the default
/// group on add, every group of the caller on a search).
public struct GenericPassword: KeychainItemKey, Hashable {
    public var service: String
    public var account: String
    public var accessGroup: String?
    /// Syncs through iCloud Keychain; cannot be combined with a ThisDeviceOnly class.
    public var synchronizable: Bool

    public init(service: String, account: String, accessGroup: String? = nil, synchronizable: Bool = false) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.synchronizable = synchronizable
    }

    public var query: [String: Any] {
        var q: [String: Any] = [RawKey.class: RawKey.genericPassword, RawKey.service: service, RawKey.account: account,
                                RawKey.synchronizable: synchronizable]
        if let accessGroup { q[RawKey.accessGroup] = accessGroup }
        return q
    }

    public var description: String {
        "generic password service \"\(service)\" account \"\(account)\"" + (accessGroup.map { " in \($0)" } ?? "") + (synchronizable ? " (synchronizable)" : "")
    }
}

/// An internet password: server and account, with the optional rest of its
/// primary key (protocol as `kSecAttrProtocol...` raw value, port, path,
/// authentication type, security domain).
public struct InternetPassword: KeychainItemKey, Hashable {
    public var server: String
    public var account: String
    public var `protocol`: String?
    public var port: Int?
    public var path: String?
    public var authenticationType: String?
    public var securityDomain: String?
    public var accessGroup: String?
    public var synchronizable: Bool

    public init(server: String, account: String, protocol: String? = nil, port: Int? = nil, path: String? = nil,
                authenticationType: String? = nil, securityDomain: String? = nil, accessGroup: String? = nil, synchronizable: Bool = false) {
        self.server = server
        self.account = account
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.authenticationType = authenticationType
        self.securityDomain = securityDomain
        self.accessGroup = accessGroup
        self.synchronizable = synchronizable
    }

    public var query: [String: Any] {
        var q: [String: Any] = [RawKey.class: RawKey.internetPassword, RawKey.server: server, RawKey.account: account,
                                RawKey.synchronizable: synchronizable]
        if let `protocol` { q[RawKey.protocol] = `protocol` }
        if let port { q[RawKey.port] = port }
        if let path { q[RawKey.path] = path }
        if let authenticationType { q[RawKey.authenticationType] = authenticationType }
        if let securityDomain { q[RawKey.securityDomain] = securityDomain }
        if let accessGroup { q[RawKey.accessGroup] = accessGroup }
        return q
    }

    public var description: String {
        "internet password server \"\(server)\" account \"\(account)\"" + (accessGroup.map { " in \($0)" } ?? "")
    }
}

// Keys compare as the keychain compares them: strings by code units (ExactString),
// so two spellings of one account are two keys here too, as they are two items.
extension GenericPassword {
    public static func == (a: GenericPassword, b: GenericPassword) -> Bool {
        a.service.isExactly(b.service) && a.account.isExactly(b.account)
            && a.accessGroup.map(ExactString.init) == b.accessGroup.map(ExactString.init) && a.synchronizable == b.synchronizable
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactString(service))
        hasher.combine(ExactString(account))
        hasher.combine(accessGroup.map(ExactString.init))
        hasher.combine(synchronizable)
    }
}

extension InternetPassword {
    public static func == (a: InternetPassword, b: InternetPassword) -> Bool {
        let strings: [(String?, String?)] = [(a.server, b.server), (a.account, b.account), (a.protocol, b.protocol), (a.path, b.path),
                                             (a.authenticationType, b.authenticationType), (a.securityDomain, b.securityDomain),
                                             (a.accessGroup, b.accessGroup)]
        return strings.allSatisfy { $0.0.map(ExactString.init) == $0.1.map(ExactString.init) }
            && a.port == b.port && a.synchronizable == b.synchronizable
    }

    public func hash(into hasher: inout Hasher) {
        for string in [server, account, self.protocol, path, authenticationType, securityDomain, accessGroup] {
            hasher.combine(string.map(ExactString.init))
        }
        hasher.combine(port)
        hasher.combine(synchronizable)
    }
}
