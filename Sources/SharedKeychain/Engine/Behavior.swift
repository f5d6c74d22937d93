extension Keychain {
    /// Which platform's rules the emulator applies. Apple's answers differ by
    /// platform and version; choose the one your code ships against.
    public struct Behavior: Sendable, Hashable, CustomStringConvertible {
        /// iOS (and iPadOS, Mac Catalyst) or macOS with AppKit.
        public enum Platform: String, Sendable, Hashable {
            /// One keychain, the data protection one; access groups always apply,
            /// application groups count as access groups.
            case iOS
            /// Two keychains: calls go to the file-based one, where
            /// `kSecAttrAccessGroup` is ignored without an error, unless they set
            /// `kSecUseDataProtectionKeychain: true` or `kSecAttrSynchronizable: true`.
            /// Application groups are not keychain access groups there.
            case macOS
        }

        public var platform: Platform
        /// True (iOS 13 and later): naming a group the process lacks is
        /// `errSecMissingEntitlement` (-34018). False: the earlier answer, `errSecItemNotFound` (-25300).
        public var reportsMissingEntitlement: Bool
        /// True: the deprecated `Always` classes are refused with `errSecParam`.
        /// False (the default): accepted, and flagged on standard error.
        public var refusesDeprecatedAccessibility: Bool

        public init(platform: Platform = .iOS, reportsMissingEntitlement: Bool = true, refusesDeprecatedAccessibility: Bool = false) {
            self.platform = platform
            self.reportsMissingEntitlement = reportsMissingEntitlement
            self.refusesDeprecatedAccessibility = refusesDeprecatedAccessibility
        }

        /// iOS 13 and later (the default).
        public static let iOS = Behavior()
        /// iOS 12 and earlier: an unentitled group reads as "not found".
        public static let iOS12 = Behavior(reportsMissingEntitlement: false)
        /// macOS (AppKit), with its file-based keychain as the default.
        public static let macOS = Behavior(platform: .macOS)

        /// The environment variable naming a behavior: `iOS`, `iOS12` or `macOS`.
        public static let environmentKey = "APP_GROUP_KEYCHAIN_BEHAVIOR"

        /// Parses `iOS`, `iOS12` or `macOS` (case-insensitive).
        public init?(named name: String) {
            switch name.lowercased() {
            case "ios", "": self = .iOS
            case "ios12": self = .iOS12
            case "macos": self = .macOS
            default: return nil
            }
        }

        public var description: String {
            switch platform {
            case .macOS: return "macOS"
            case .iOS: return reportsMissingEntitlement ? "iOS" : "iOS12"
            }
        }
    }
}
