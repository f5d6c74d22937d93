import AppGroupSystem
import Foundation

extension BuildSettings {
    /// The settings of an Xcode `.xcconfig` file as an iOS device build sees them.
    ///
    /// Xcode's syntax: `KEY = value` (a trailing `;` allowed), `//` comments,
    /// `#include "other.xcconfig"` (relative to the including file) and
    /// `#include? "optional.xcconfig"` (skipped when missing), `$(inherited)` (the
    /// value the assignment replaces), references between settings (expanded when
    /// used, see ``expand(_:file:line:)``), and conditional settings
    /// `KEY[sdk=iphoneos*] = value`, `KEY[config=Debug][arch=arm64] = value`. A
    /// conditional setting whose conditions all match (`sdk` against `sdk` and
    /// `sdk` with a version, as `iphoneos26.0`; `config`; `arch`) wins over the
    /// unconditional one, as the more specific setting does in Xcode; one with
    /// another condition (`variant=`...) never matches.
    /// - Parameters:
    ///   - url: the `.xcconfig` file.
    ///   - sdk: the SDK conditions are chosen for: `iphoneos` (a device) by default.
    ///   - configuration: the build configuration, `Debug` by default.
    ///   - architecture: the architecture, `arm64` by default.
    /// - Throws: ``SimulationError/buildSetting(_:)`` naming the file and line of a
    ///   malformed line, an unreadable `#include` or an include cycle.
    public init(contentsOf url: URL, sdk: String = "iphoneos", configuration: String = "Debug",
                architecture: String = "arm64") throws {
        do {
            self = try BuildSettings(reading: url, sdk: sdk, configuration: configuration, architecture: architecture)
        } catch {
            throw SimulationError.buildSetting(error)
        }
    }

    /// ``init(contentsOf:sdk:configuration:architecture:)``, typed: for the package's own code.
    package init(reading url: URL, sdk: String, configuration: String, architecture: String) throws(BuildSettingFailure) {
        var reader = XCConfigReader(platform: .init(sdk: sdk, configuration: configuration, architecture: architecture))
        try reader.read(url.standardizedFileURL, includedFrom: nil)
        var settings = BuildSettings(reader.unconditional)
        settings.overwrite(with: reader.conditional)
        self = settings
    }
}

/// What conditional settings are chosen for.
struct BuildPlatform {
    let sdk: String
    let configuration: String
    let architecture: String

    func matches(_ conditions: [(key: String, pattern: String)]) -> Bool {
        conditions.allSatisfy { condition in
            switch condition.key {
            case "sdk": return glob(condition.pattern, sdk) || glob(condition.pattern, sdk + "26.0")
            case "config": return glob(condition.pattern, configuration)
            case "arch": return glob(condition.pattern, architecture)
            default: return false
            }
        }
    }

    private func glob(_ pattern: String, _ text: String) -> Bool { fnmatch(pattern, text, 0) == 0 }
}

/// Reads `.xcconfig` files, following includes, into two layers of settings.
private struct XCConfigReader {
    let platform: BuildPlatform
    var unconditional: [String: String] = [:]
    var conditional: [String: String] = [:]
    private var open: [String] = []

    init(platform: BuildPlatform) { self.platform = platform }

    /// The largest `.xcconfig` read (a real one is a few kilobytes).
    static let sizeLimit = 1 << 20

    mutating func read(_ url: URL, includedFrom: (file: String, line: Int, optional: Bool)?) throws(BuildSettingFailure) {
        func fail(_ problem: BuildSettingFailure.Problem, _ file: String, _ line: Int?) -> BuildSettingFailure {
            BuildSettingFailure(problem: problem, file: file, line: line, givenSettings: Array(Set(unconditional.keys).union(conditional.keys)).sorted())
        }
        let path = url.path
        if open.contains(path) {
            let from = includedFrom ?? (path, 0, false)
            throw fail(.unreadableInclude(path: path, reason: "it includes itself, through \(open.joined(separator: " -> "))"), from.file, from.line)
        }
        let data: Data
        do {
            data = try Self.contents(of: url)
        } catch {
            guard let from = includedFrom else { throw fail(.unreadableFile(reason: "\(error)"), path, nil) }
            if from.optional { return }
            throw fail(.unreadableInclude(path: path, reason: "\(error)"), from.file, from.line)
        }
        open.append(path)
        defer { open.removeLast() }
        let text = String(decoding: data, as: UTF8.self)
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            var line = Substring(rawLine)
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("#include") {
                let optional = trimmed.hasPrefix("#include?")
                let rest = trimmed.dropFirst(optional ? 9 : 8).trimmingCharacters(in: .whitespaces)
                guard rest.count >= 2, let first = rest.first, let last = rest.last,
                      (first == "\"" && last == "\"") || (first == "<" && last == ">") else {
                    throw fail(.malformedLine(trimmed), path, number)
                }
                let name = String(rest.dropFirst().dropLast())
                let included = name.hasPrefix("/") ? URL(fileURLWithPath: name)
                    : url.deletingLastPathComponent().appendingPathComponent(name)
                try read(included.standardizedFileURL, includedFrom: (path, number, optional))
                continue
            }
            guard let assignment = Self.assignment(trimmed) else { throw fail(.malformedLine(trimmed), path, number) }
            if assignment.conditions.isEmpty {
                unconditional[assignment.name] = BuildSettings.replacingInherited(in: assignment.value, with: unconditional[assignment.name] ?? "")
            } else if platform.matches(assignment.conditions) {
                let previous = conditional[assignment.name] ?? unconditional[assignment.name] ?? ""
                conditional[assignment.name] = BuildSettings.replacingInherited(in: assignment.value, with: previous)
            }
        }
    }

    /// `NAME[cond=pattern][...] = value`, or nil when the line is not one.
    static func assignment(_ line: String) -> (name: String, conditions: [(key: String, pattern: String)], value: String)? {
        let scalars = Array(line.unicodeScalars)
        func isNameScalar(_ s: Unicode.Scalar, first: Bool) -> Bool {
            s == "_" || (s.isASCII && (s.properties.isAlphabetic || (!first && ("0"..."9").contains(s))))
        }
        var index = 0
        while index < scalars.count, isNameScalar(scalars[index], first: index == 0) { index += 1 }
        guard index > 0 else { return nil }
        let name = String(String.UnicodeScalarView(scalars[0..<index]))
        var conditions: [(String, String)] = []
        // "[sdk=iphoneos*][arch=arm64]" or "[sdk=iphoneos*,arch=arm64]"
        while index < scalars.count, scalars[index] == "[" {
            guard let close = scalars[index...].firstIndex(of: "]") else { return nil }
            let group = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
            for condition in group.split(separator: ",") {
                let pair = condition.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, !pair[0].isEmpty else { return nil }
                conditions.append((pair[0], pair[1]))
            }
            index = close + 1
        }
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        guard index < scalars.count, scalars[index] == "=" else { return nil }
        var value = String(String.UnicodeScalarView(scalars[(index + 1)...])).trimmingCharacters(in: .whitespaces)
        if value.hasSuffix(";") { value.removeLast(); value = value.trimmingCharacters(in: .whitespaces) }
        return (name, conditions, value)
    }

    /// The bytes of a regular file of at most ``sizeLimit`` bytes (a FIFO is refused, not waited on).
    static func contents(of url: URL) throws -> Data {
        try SandboxSystemCalls.readRegularFile(url.path, limit: sizeLimit)
    }
}
