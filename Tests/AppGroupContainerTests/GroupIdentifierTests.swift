import AppGroupContainer
import AppGroupTesting
import Foundation
import Testing
import TestSupport

@Suite("Group identifiers", .dedicatedThreads)
struct GroupIdentifierTests {
    /// Identifiers that break exactly the rule they are listed under (the first
    /// rule checked), several per rule.
    static let rejected: [GroupIdentifier.Rule: [String]] = [
        .empty: [""],
        .tooLong: ["group." + String(repeating: "a", count: 250), "group." + String(repeating: "ab.", count: 100),
                   "group." + String(repeating: "é", count: 125)],
        .controlCharacter: ["group.a\u{0}b", "group.a\u{0}", "\u{0}group.a", "group.a\nb", "group.a\tb", "group.a\u{1B}b",
                            "group.a\u{7F}b", "group.a\u{85}b", "group.a\r"],
        .whitespace: ["group.a b", " group.a", "group.a ", "group.a\u{00A0}b", "group.a\u{2003}b", "group.a\u{3000}b"],
        .pathSeparator: ["group.a/b", "group./", "group.a\\b", "group.a/../../etc", "../group.a", "group.a/"],
        .missingGroupPrefix: ["com.example.notes", "Group.a", "group", "groups.a", "a1b2c3d4e5.com.example",
                              "A1B2C3D4E.com.example", "A1B2C3D4E5F.com.example", ".group.a", "..", "."],
        .nothingAfterPrefix: ["group.", "A1B2C3D4E5", "A1B2C3D4E5."],
        .dotComponent: ["group..", "group.a..b", "group...", "group.a..", "A1B2C3D4E5..com", "A1B2C3D4E5.com..x"],
        .emptyComponent: ["group.a.", "group.a.b.", "A1B2C3D4E5.com."],
        .disallowedCharacter: ["group.a_b", "group.a:b", "group.é", "group.a%2Fb", "group.a*", "group.a~b", "group.a\"b",
                               "group.日本", "group.a\u{200B}b", "group.a\u{FEFF}", "A1B2C3D4E5.com.ex@mple"],
    ]

    @Test("every rule has rejected examples", arguments: GroupIdentifier.Rule.allCases)
    func everyRuleCovered(rule: GroupIdentifier.Rule) {
        #expect(!(Self.rejected[rule] ?? []).isEmpty, "no example breaks \(rule)")
    }

    @Test("each rejected identifier throws invalidGroupIdentifier naming the rule it broke",
          arguments: GroupIdentifier.Rule.allCases)
    func rejectedWithRule(rule: GroupIdentifier.Rule) throws {
        for raw in Self.rejected[rule] ?? [] {
            #expect(GroupIdentifier.violation(in: raw) == rule, "\(AppGroupErrorQuote(raw))")
            #expect(GroupIdentifier(validating: raw) == nil)
            let error = #expect(throws: AppGroupError.self) { try GroupIdentifier(raw) }
            #expect(error == .invalidGroupIdentifier(raw, rule: rule), "\(AppGroupErrorQuote(raw))")
            let message = error?.description ?? ""
            #expect(message.contains(rule.explanation), "message \(message) does not name the rule \(rule)")
            #expect(message.contains("group.") && message.contains("A1B2C3D4E5"), "the message says what to write instead")
            // The message quotes the input visibly: no raw control character reaches a terminal.
            #expect(!message.unicodeScalars.contains { $0.value < 0x20 }, "\(AppGroupErrorQuote(message))")
        }
    }

    @Test("explanations are distinct sentences")
    func explanationsDistinct() {
        let explanations = GroupIdentifier.Rule.allCases.map(\.explanation)
        #expect(Set(explanations).count == explanations.count)
        #expect(explanations.allSatisfy { !$0.isEmpty })
        #expect(GroupIdentifier.Rule.missingGroupPrefix.explanation.contains("must begin with 'group.'"))
    }

    static let accepted = [
        "group.ai.systenics.notes", "group.com.example.notes", "group.a", "group.A-b.9", "group.com.example-app.shared",
        "A1B2C3D4E5.com.example.vault", "ABCDEFGHIJ.x", "0123456789.a.b.c",
        "group." + String(repeating: "a", count: 249), // exactly 255 bytes
    ]

    @Test("accepted identifiers (iOS and Team-ID form) resolve to a direct child of the root", arguments: accepted)
    func acceptedResolveInsideRoot(raw: String) throws {
        let group = try GroupIdentifier(raw)
        #expect(group.rawValue == raw)
        #expect(group.description == raw)
        #expect(group.isApplicationGroupForm == raw.hasPrefix("group."))
        #expect(group.teamIdentifier == (raw.hasPrefix("group.") ? nil : String(raw.prefix(10))))
        try withTemporaryDirectory { root in
            let identity = try Entitlements(applicationIdentifier: "A1B2C3D4E5.com.example.app", applicationGroups: [raw])
            let resolver = ContainerResolver(root: root, entitlements: identity)
            let url = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: raw)
            #expect(url.standardizedFileURL.deletingLastPathComponent().path == root.path)
            #expect(url.lastPathComponent == raw)
            #expect(url.resolvingSymlinksInPath().path == root.resolvingSymlinksInPath().appendingPathComponent(raw).path)
            #expect(containerNames(in: root) == [raw])
        }
    }

    @Test("identifiers are Codable and validated when decoded")
    func codable() throws {
        let encoded = try JSONEncoder().encode([try GroupIdentifier("group.a.b")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["group.a.b"]"#)
        #expect(try JSONDecoder().decode([GroupIdentifier].self, from: encoded) == [try GroupIdentifier("group.a.b")])
        #expect(throws: AppGroupError.invalidGroupIdentifier("group.a/../b", rule: .pathSeparator)) {
            try JSONDecoder().decode([GroupIdentifier].self, from: Data(#"["group.a/../b"]"#.utf8))
        }
    }

    @Test("a fuzz of random and crafted strings never resolves outside the root", .tags(.fuzz, .hostile))
    func fuzzNeverEscapes() throws {
        var generator = SeededGenerator(seed: 0x5EED_A99C)
        let pieces = ["group.", "group", ".", "..", "/", "\\", "a", "Z", "9", "-", "_", "%2F", "%2e%2e", "\u{0}", " ", "\n",
                      "é", "\u{2215}", "\u{FF0F}", "\u{202E}", "A1B2C3D4E5", "A1B2C3D4E5.", "~", "$(HOME)", "*", "com", "example"]
        var candidates: [String] = []
        for _ in 0..<3000 {
            var s = ""
            for _ in 0..<Int(generator.next() % 8) {
                if generator.next() % 4 == 0 {
                    s.unicodeScalars.append(Unicode.Scalar(UInt32(generator.next() % 0x30000)) ?? "?")
                } else {
                    s += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
            }
            candidates.append(s)
        }
        for valid in Self.accepted.prefix(6) {
            for insert in ["/..", "/../..", "..", "\\..", "\u{0}/", "/", "/.", "./"] {
                candidates += [valid + insert, insert + valid, valid.replacingOccurrences(of: ".", with: insert)]
            }
        }
        var acceptedCount = 0
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("root")
            let outside = dir.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
            var valid: [String] = []
            for raw in candidates {
                guard let group = GroupIdentifier(validating: raw) else {
                    #expect(GroupIdentifier.violation(in: raw) != nil)
                    #expect(throws: AppGroupError.self) { try GroupIdentifier(raw) }
                    continue
                }
                valid.append(raw)
                let resolver = ContainerResolver(root: root, entitlements: try Entitlements(
                    applicationIdentifier: "A1B2C3D4E5.com.example.app", applicationGroups: [raw]))
                let location = resolver.containerLocation(for: group).standardizedFileURL
                #expect(location.deletingLastPathComponent().path == root.path, "\(AppGroupErrorQuote(raw)) leaves the root")
                #expect(location.lastPathComponent == raw)
            }
            acceptedCount = valid.count
            // Resolve every accepted one on disk and every rejected one through the resolver.
            let identity = try Entitlements(applicationIdentifier: "A1B2C3D4E5.com.example.app", applicationGroups: valid)
            let resolver = ContainerResolver(root: root, entitlements: identity)
            for raw in candidates {
                if valid.contains(raw) {
                    let url = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: raw)
                    #expect(url.deletingLastPathComponent().path == root.path)
                } else {
                    #expect(throws: AppGroupError.self) { try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: raw) }
                }
            }
            #expect(names(in: outside) == [])
            #expect(names(in: dir) == ["outside"] + (valid.isEmpty ? [] : ["root"]))
            #expect(Set(containerNames(in: root)) == Set(valid))
        }
        #expect(acceptedCount > 0, "the fuzz should also produce some valid identifiers")
    }
}

/// The identifier as AppGroupError prints it, for readable failure messages.
func AppGroupErrorQuote(_ s: String) -> String {
    s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? String(format: "\\u{%02X}", $0.value) : String($0) }.joined()
}

