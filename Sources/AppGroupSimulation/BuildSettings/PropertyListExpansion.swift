import AppGroupContainer
import Foundation
import PropertyLists

/// Expands the build settings in a property list's strings, as Xcode does when
/// it processes an Info.plist or signs with an `.entitlements` file.
enum PropertyListExpansion {
    /// `tree` with every string value expanded; keys are left as written.
    /// - Parameters:
    ///   - text: the file's bytes, to find the line of a failing reference (XML only).
    ///   - file: the file's name for messages.
    static func expand(_ tree: PropertyListTree, with settings: BuildSettings, text: Data, file: String) throws(BuildSettingFailure) -> PropertyListTree {
        switch tree {
        case .string(let string):
            guard string.contains("$(") || string.contains("${") else { return tree }
            do {
                return .string(try settings.expanding(string, file: file, line: nil))
            } catch {
                throw BuildSettingFailure(problem: error.problem, file: file, line: line(of: error.problem, in: text, near: string),
                                        givenSettings: error.givenSettings)
            }
        case .array(let items):
            var out: [PropertyListTree] = []
            for item in items { out.append(try expand(item, with: settings, text: text, file: file)) }
            return .array(out)
        case .dictionary(let dictionary):
            var out = PropertyListDictionary(minimumCapacity: dictionary.count)
            for (key, value) in dictionary { out.set(try expand(value, with: settings, text: text, file: file), forKey: key) }
            return .dictionary(out)
        default:
            return tree
        }
    }

    /// The 1-based line of the file's text where the failing reference is written
    /// (the first line naming it), nil for a binary property list.
    static func line(of problem: BuildSettingFailure.Problem, in text: Data, near string: String) -> Int? {
        guard !text.starts(with: Array("bplist".utf8)) else { return nil }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var needles: [String] = []
        if case .undefinedSetting(let name) = problem { needles = ["$(\(name)", "${\(name)"] }
        // The string's own first line, for the other problems (and as a fallback).
        if let first = string.split(separator: "\n").first { needles.append(String(first)) }
        for needle in needles {
            if let index = lines.firstIndex(where: { $0.contains(needle) }) { return index + 1 }
        }
        return nil
    }
}
