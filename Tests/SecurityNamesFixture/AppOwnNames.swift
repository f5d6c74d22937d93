// An app's own module, as in a real project: types named like the package's own
// API (not Apple's), which an app is free to declare. SecurityNamesTests imports
// this module beside Security and LocalAuthentication and uses every name: if
// those modules exposed the package's API, each use would be ambiguous.

/// Every public name of SharedKeychain that is not Apple's, plus the App Group
/// names SharedKeychain re-exports from AppGroupContainer that an app is likely to
/// have too. SecurityNamesTests checks this list against SharedKeychain's sources.
public let appOwnNames = [
    "Accessibility", "AuthenticationFailure", "DeviceState", "GenericPassword", "InternetPassword", "ItemClass",
    "Keychain", "KeychainAccessControl", "KeychainDevice", "KeychainError", "KeychainItemKey", "SimulatedBiometry",
    "Entitlements", "Diagnostics", "AppGroupError", "GroupIdentifier", "ContainerResolver",
]

public enum Accessibility: Sendable { case whenUnlocked }
public struct AuthenticationFailure: Error, Sendable { public init() {} }
public struct DeviceState: Sendable { public var isLocked = false; public init() {} }
public struct GenericPassword: Sendable { public var account = "me"; public init() {} }
public struct InternetPassword: Sendable { public var server = "example.com"; public init() {} }
public enum ItemClass: Sendable { case password }
public struct Keychain: Sendable {
    public var service: String
    public init(service: String) { self.service = service }
}
public struct KeychainAccessControl: Sendable { public var flags = 0; public init() {} }
public struct KeychainDevice: Sendable { public init() {} }
public enum KeychainError: Error, Sendable { case notFound }
public protocol KeychainItemKey { var name: String { get } }
public struct SimulatedBiometry: Sendable { public init() {} }
public struct Entitlements: Sendable { public var groups: [String] = []; public init() {} }
public enum Diagnostics { public static func log(_ line: String) -> String { line } }
public enum AppGroupError: Error { case missing }
public struct GroupIdentifier: Sendable { public var value = "group.x"; public init() {} }
public struct ContainerResolver: Sendable { public init() {} }
