import Foundation

/// Xcode build settings, for the `$(NAME)` and `${NAME}` references that real
/// `.entitlements` and Info.plist files hold (`group.$(APP_ID_IOS)`,
/// `$(PRODUCT_BUNDLE_IDENTIFIER)`): give them as a dictionary, read them from an
/// `.xcconfig` file (``init(contentsOf:sdk:configuration:architecture:)``), or both.
///
/// ```swift
/// let settings = try BuildSettings(contentsOf: URL(fileURLWithPath: "Config/Shared.xcconfig"))
///     .adding(["APP_GROUP_ID": "group.com.example.reader"])
/// let share = try SimulatedTarget(name: "ReaderShare", kind: .shareExtension,
///                                 entitlementsFile: url, teamIdentifier: "A1B2C3D4E5",
///                                 bundleIdentifier: "com.example.reader.share", buildSettings: settings)
/// ```
///
/// References expand as Xcode expands them: recursively (a setting may refer to
/// others, `$(FOO_$(BAR))` too), with the operators `lower`, `upper`,
/// `identifier`, `c99extidentifier`, `rfc1034identifier`, `quote`,
/// `standardizepath`, `base`, `suffix`, `dir`, `file` and `default=value`
/// (`$(NAME:lower)`). A bare `$name` is left alone, as Xcode leaves the
/// `$extensionItem` of an `NSExtensionActivationRule`. A reference to a setting
/// nobody gave is a ``BuildSettingFailure`` naming the file, the line and the setting.
public struct BuildSettings: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The settings by name, as given (a value may still refer to other settings).
    public private(set) var values: [String: String]

    /// Settings given in code: `["APP_GROUP_ID": "group.com.example.reader"]`.
    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// The value of `name` as given, unexpanded.
    public subscript(name: String) -> String? { values[name] }

    /// These settings, then `other`'s on top: a setting of `other` wins, and
    /// `$(inherited)` in its value stands for the value it replaces (as a target's
    /// setting inherits the project's).
    public func adding(_ other: BuildSettings) -> BuildSettings {
        var result = self
        for (name, value) in other.values { result.assign(name, value) }
        return result
    }

    /// Sets each of `values` as it is (no `$(inherited)` replaced).
    mutating func overwrite(with values: [String: String]) {
        self.values.merge(values) { $1 }
    }

    /// Sets `name`, replacing `$(inherited)` in `value` by its previous value.
    mutating func assign(_ name: String, _ value: String) {
        values[name] = Self.replacingInherited(in: value, with: values[name] ?? "")
    }

    static func replacingInherited(in value: String, with previous: String) -> String {
        value.replacingOccurrences(of: "$(inherited)", with: previous).replacingOccurrences(of: "${inherited}", with: previous)
    }

    /// The value of `name` with every reference in it expanded; nil when `name` is not set.
    /// - Throws: ``SimulationError/buildSetting(_:)`` for a reference to an unknown setting, a circle or an unknown operator.
    public func expandedValue(of name: String) throws -> String? {
        guard values[name] != nil else { return nil }
        do { return try expanding("$(\(name))", file: "build setting \(name)", line: nil) } catch { throw SimulationError.buildSetting(error) }
    }

    /// `text` with every `$(NAME)` and `${NAME}` reference expanded.
    /// - Parameters:
    ///   - file: where `text` comes from, for the error.
    ///   - line: its line in `file`, when known.
    /// - Throws: ``SimulationError/buildSetting(_:)`` naming `file`, `line` and the setting.
    public func expand(_ text: String, file: String, line: Int?) throws -> String {
        do { return try expanding(text, file: file, line: line) } catch { throw SimulationError.buildSetting(error) }
    }

    /// ``expand(_:file:line:)``, typed: for the package's own code. (The public
    /// form is not declared with typed throws: Swift 6.3.1 crashes compiling a
    /// caller's non-exhaustive `catch` around a typed-throwing call.)
    package func expanding(_ text: String, file: String, line: Int?) throws(BuildSettingFailure) -> String {
        var expander = Expander(settings: self, file: file, line: line)
        return try expander.expand(Substring(text), resolving: [])
    }

    /// The names of the settings, sorted (what a message lists).
    var names: [String] { values.keys.sorted() }
}

/// The expansion of one text: references found by hand (nesting counts), so that
/// a `$(` inside a value is matched with its own `)`.
private struct Expander {
    let settings: BuildSettings
    let file: String
    let line: Int?

    func error(_ problem: BuildSettingFailure.Problem) -> BuildSettingFailure {
        BuildSettingFailure(problem: problem, file: file, line: line, givenSettings: settings.names)
    }

    mutating func expand(_ text: Substring, resolving: [String]) throws(BuildSettingFailure) -> String {
        var out = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            guard character == "$", next < text.endIndex, text[next] == "(" || text[next] == "{" else {
                out.append(character)
                index = next
                continue
            }
            let close: Character = text[next] == "(" ? ")" : "}"
            let open = text[next]
            var depth = 0
            var end = text.index(after: next)
            var found: String.Index?
            while end < text.endIndex {
                if text[end] == open { depth += 1 }
                if text[end] == close {
                    if depth == 0 { found = end; break }
                    depth -= 1
                }
                end = text.index(after: end)
            }
            guard let found else { throw error(.unterminatedReference) }
            let inner = try expand(text[text.index(after: next)..<found], resolving: resolving)
            out += try value(of: inner, resolving: resolving)
            index = text.index(after: found)
        }
        return out
    }

    /// The value of a reference's content, `NAME` or `NAME:op:op`.
    mutating func value(of reference: String, resolving: [String]) throws(BuildSettingFailure) -> String {
        var parts = reference.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts.removeFirst()
        var value: String
        if name == "inherited" || name.isEmpty {
            value = "" // nothing below the lowest level; $() is Xcode's way to write // in a value
        } else if let raw = settings.values[name] {
            if resolving.contains(name) { throw error(.circularReference(resolving + [name])) }
            value = try expand(Substring(raw), resolving: resolving + [name])
        } else if parts.contains(where: { $0.hasPrefix("default=") }) {
            value = ""
        } else {
            throw error(.undefinedSetting(name))
        }
        for op in parts {
            guard let applied = Self.apply(op, to: value) else { throw error(.unknownOperator(setting: name, operator: op)) }
            value = applied
        }
        return value
    }

    static func apply(_ op: String, to value: String) -> String? {
        func mapped(_ keep: (Unicode.Scalar) -> Bool, _ replacement: Character) -> String {
            String(value.unicodeScalars.map { keep($0) ? Character($0) : replacement })
        }
        let alphanumeric = { (s: Unicode.Scalar) in s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s)) }
        if op.hasPrefix("default=") { return value.isEmpty ? String(op.dropFirst("default=".count)) : value }
        switch op {
        case "lower": return value.lowercased()
        case "upper": return value.uppercased()
        case "identifier", "c99extidentifier":
            let id = mapped(alphanumeric, "_")
            return id.first.map { $0.isNumber } == true ? "_" + id : id
        case "rfc1034identifier": return mapped({ alphanumeric($0) || $0 == "-" || $0 == "." }, "-")
        case "quote": return value.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" })
            ? value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: " ", with: "\\ ").replacingOccurrences(of: "\"", with: "\\\"") : value
        case "standardizepath": return (value as NSString).standardizingPath
        case "base": return ((value as NSString).lastPathComponent as NSString).deletingPathExtension
        case "suffix": let ext = (value as NSString).pathExtension; return ext.isEmpty ? "" : "." + ext
        case "dir": return (value as NSString).deletingLastPathComponent
        case "file": return (value as NSString).lastPathComponent
        default: return nil
        }
    }
}
