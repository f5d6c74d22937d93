import Foundation

/// A build setting could not be expanded or read: an `.entitlements` file, an
/// Info.plist or an `.xcconfig` file names a setting nobody gave, or an
/// `.xcconfig` file is malformed. The description names the file, the line, the
/// setting, and the settings that were given.
public struct BuildSettingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Problem: Sendable, Hashable {
        /// `$(name)` or `${name}` names a setting that was not given.
        case undefinedSetting(String)
        /// Settings refer to each other in a circle (`A = $(B)`, `B = $(A)`).
        case circularReference([String])
        /// `$(name:operator)` with an operator this package does not know.
        case unknownOperator(setting: String, operator: String)
        /// A `$(` or `${` that is never closed.
        case unterminatedReference
        /// An `.xcconfig` line that is not `KEY = value`, a comment or an `#include`.
        case malformedLine(String)
        /// An `#include` (not `#include?`) of a file that cannot be read, or a file that includes itself.
        case unreadableInclude(path: String, reason: String)
        /// The `.xcconfig` file itself cannot be read.
        case unreadableFile(reason: String)
    }

    /// What went wrong.
    public let problem: Problem
    /// The file (an `.entitlements`, an Info.plist, an `.xcconfig`), or where the text came from.
    public let file: String
    /// The 1-based line in ``file``, when known.
    public let line: Int?
    /// The names of the settings that were given (from `buildSettings:` and
    /// `.xcconfig` files), sorted.
    public let givenSettings: [String]

    public var description: String {
        let place = file + (line.map { ":\($0)" } ?? "")
        let given = givenSettings.isEmpty ? "none were given" : "given: " + givenSettings.joined(separator: ", ")
        switch problem {
        case .undefinedSetting(let name):
            return "\(place): the build setting \(name) is not defined (\(given)); "
                + "pass it in buildSettings: [\"\(name)\": \"...\"] or in an .xcconfig file, as the Xcode target's build settings define it"
        case .circularReference(let names):
            return "\(place): the build settings refer to each other in a circle (\(names.joined(separator: " -> "))); make one of them a plain value"
        case .unknownOperator(let setting, let op):
            return "\(place): $(\(setting):\(op)) uses the operator \(op), which is not supported "
                + "(supported: lower, upper, identifier, c99extidentifier, rfc1034identifier, quote, standardizepath, base, suffix, dir, file, default=)"
        case .unterminatedReference:
            return "\(place): a $( or ${ reference is never closed"
        case .malformedLine(let text):
            return "\(place): \(text.debugDescription) is not KEY = value, a // comment, or #include \"file\""
        case .unreadableInclude(let path, let reason):
            return "\(place): #include \"\(path)\" cannot be read (\(reason)); use #include? for a file that may be missing"
        case .unreadableFile(let reason):
            return "\(place): cannot read the .xcconfig file (\(reason))"
        }
    }
}
