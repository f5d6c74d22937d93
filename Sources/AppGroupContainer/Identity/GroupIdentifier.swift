/// A validated App Group identifier.
///
/// Two forms are accepted, as on Apple's platforms:
/// - the iOS form, `group.` followed by a reverse-DNS name (`group.ai.systenics.notes`);
/// - the macOS Team-ID form, a ten-character Team ID, a dot and a reverse-DNS name
///   (`A1B2C3D4E5.com.example.vault`).
///
/// Validation is strict enough that an identifier is always a single, safe path
/// component: no separator, no `.`/`..`, no control character, at most 255 bytes.
/// So no identifier, however crafted, resolves outside the container root. Names
/// derived from a long identifier (`<group>.plist`, its lock file and temporaries)
/// are shortened to fit 255 bytes by `FileNames.fitted(_:keepingSuffix:limit:)`.
public struct GroupIdentifier: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The identifier as written, for example `group.ai.systenics.notes`.
    public let rawValue: String

    /// The rule a rejected identifier broke.
    public enum Rule: String, Hashable, Sendable, CaseIterable {
        case empty
        case tooLong
        case controlCharacter
        case whitespace
        case pathSeparator
        case missingGroupPrefix
        case nothingAfterPrefix
        case emptyComponent
        case dotComponent
        case disallowedCharacter

        /// A sentence a person can act on.
        public var explanation: String {
            switch self {
            case .empty: return "it is empty"
            case .tooLong: return "it is longer than 255 bytes"
            case .controlCharacter: return "it contains a NUL or control character"
            case .whitespace: return "it contains whitespace"
            case .pathSeparator: return "it contains a path separator ('/' or '\\')"
            case .missingGroupPrefix: return "a container ID must begin with 'group.' (or, on macOS, with a ten-character Team ID and a dot)"
            case .nothingAfterPrefix: return "nothing follows the 'group.' prefix"
            case .emptyComponent: return "it has an empty component (a dot at the start or the end)"
            case .dotComponent: return "it contains '..' (an empty component, and a parent-directory reference as a path)"
            case .disallowedCharacter: return "it contains a character other than letters, digits, '-' and '.'"
            }
        }
    }

    /// Validates `string`.
    /// - Throws: ``AppGroupError/invalidGroupIdentifier(_:rule:)`` naming the broken rule.
    public init(_ string: String) throws {
        self = try Self.validated(string)
    }

    /// ``init(_:)``, typed: for the package's own code.
    package static func validated(_ string: String) throws(AppGroupError) -> GroupIdentifier {
        if let rule = violation(in: string) {
            throw .invalidGroupIdentifier(string, rule: rule)
        }
        return GroupIdentifier(unchecked: string)
    }

    private init(unchecked string: String) { rawValue = string }

    /// Validates without throwing; nil when `string` is not a valid identifier.
    public init?(validating string: String) {
        guard Self.violation(in: string) == nil else { return nil }
        rawValue = string
    }

    /// True for the iOS form (`group.`...).
    package var isApplicationGroupForm: Bool { rawValue.hasPrefix(Self.prefix) }

    /// The Team ID of a macOS Team-ID form identifier; nil for the `group.` form.
    package var teamIdentifier: String? {
        isApplicationGroupForm ? nil : String(rawValue.prefix(10))
    }

    public var description: String { rawValue }

    public static func < (a: GroupIdentifier, b: GroupIdentifier) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        let string = try decoder.singleValueContainer().decode(String.self)
        try self.init(string)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    static let prefix = "group."

    /// The first rule `string` breaks, checked from the most specific to the most general.
    package static func violation(in string: String) -> Rule? {
        if string.isEmpty { return .empty }
        if string.utf8.count > 255 { return .tooLong }
        for scalar in string.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) { return .controlCharacter }
        }
        if string.unicodeScalars.contains(where: { $0.properties.isWhitespace }) { return .whitespace }
        if string.contains("/") || string.contains("\\") { return .pathSeparator }
        let components = string.split(separator: ".", omittingEmptySubsequences: false)
        if string.hasPrefix(prefix) {
            if string.utf8.count == prefix.utf8.count { return .nothingAfterPrefix }
        } else if !isTeamIdentifier(components[0]) {
            return .missingGroupPrefix
        } else if components.count < 2 || (components.count == 2 && components[1].isEmpty) {
            return .nothingAfterPrefix
        }
        // Dots separate components, so ".." is both an empty component and, as a
        // path, the parent directory: named for the latter, the graver reading.
        if string.contains("..") { return .dotComponent }
        if components.contains(where: { $0.isEmpty }) { return .emptyComponent }
        let allowed = string.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E
        }
        if !allowed { return .disallowedCharacter }
        return nil
    }

    /// Apple Team IDs are ten characters of upper-case letters and digits.
    static func isTeamIdentifier<S: StringProtocol>(_ s: S) -> Bool {
        s.utf8.count == 10 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }
    }
}
