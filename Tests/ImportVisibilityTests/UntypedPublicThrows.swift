import Foundation
import Testing

/// The class CatchShapes guards, checked at its source: no public or open
/// declaration of any module throws a typed error. CatchShapes compiles the
/// calls it lists; this scan covers the ones nobody listed yet (a new module, a
/// new initializer), because a user's `catch where` around any of them would
/// crash Swift 6.3.1's compiler.
@Suite("Public API throws untyped errors")
struct UntypedPublicThrows {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// `public` or `open` among the leading modifiers, then anything but a body's `{` or a statement's end,
    /// then `throws(`: a declaration's signature that throws a typed error.
    static let typedPublicThrow = try! NSRegularExpression(pattern: #"(?m)^[ \t]*(?:@[^\n]*\n[ \t]*)*(?:(?!func\b|var\b|let\b|case\b)[a-z]+ )*(?:public|open)[ \t][^{}]*?\bthrows\("#)

    static func violations(in text: String) -> [String] {
        let range = NSRange(text.startIndex..., in: text)
        return typedPublicThrow.matches(in: text, range: range).compactMap { match in
            Range(match.range, in: text).map { text[$0].split(separator: "\n").first.map(String.init) ?? "" }
        }
    }

    @Test("the scan finds a typed public throw, on one line or across lines, and passes untyped and package ones")
    func scanFindsTheShape() {
        #expect(Self.violations(in: "    public init(contentsOf url: URL) throws(BuildSettingFailure) {\n").count == 1)
        #expect(Self.violations(in: "    public func f(a: Int,\n                  b: Int) throws(E) -> Int {\n").count == 1)
        #expect(Self.violations(in: "    public func f() throws -> Int {\n    package func g() throws(E) {\n").isEmpty)
        #expect(Self.violations(in: "    func g() throws(E) {\n").isEmpty)
        #expect(Self.violations(in: "    package static func open(_ path: String) throws(E) {\n").isEmpty, "a function named open is not the modifier")
    }

    @Test("no public or open declaration in Sources/ throws a typed error")
    func noTypedPublicThrows() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var found: [String] = []
        var scanned = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            scanned += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            found += Self.violations(in: text).map { "\(url.path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        #expect(scanned > 100, "the scan read \(scanned) files under \(Self.sources.path)")
        #expect(found.isEmpty, "declare these with plain `throws` and document the error type (ARCHITECTURE.md, typed throws): \(found)")
    }
}
